import Foundation

/// A program the test runs alongside itself (Xvfb, ffplay, pulseaudio, paplay), stopped by ``stop()`` or when the
/// value is released.
public final class BackgroundProcess: @unchecked Sendable {
    // Safe: `process` and `output` are set in init and only read afterwards; Process itself is thread-safe for
    // isRunning/terminate/waitUntilExit.
    private let process: Process
    private let output: Pipe
    private let errorLog: Pipe
    /// The program's name, for messages.
    public let name: String

    /// Starts `executable` (found on PATH) with `arguments`.
    /// - Parameter environment: extra variables on top of this process's environment.
    /// - Throws: when the program is not installed or cannot start.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        name = executable
        process = Process()
        process.executableURL = URL(fileURLWithPath: try Subprocess.resolve(executable))
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        output = Pipe()
        errorLog = Pipe()
        process.standardOutput = output
        process.standardError = errorLog
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// The process id.
    public var pid: Int32 { process.processIdentifier }

    /// Whether it is still running.
    public var isRunning: Bool { process.isRunning }

    /// Reads the first line the program prints on standard output (blocking up to `timeout`).
    public func readLine(timeout: TimeInterval = 10) throws -> String {
        let handle = output.fileHandleForReading
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var poller = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
        while Date() < deadline {
            guard poll(&poller, 1, 100) > 0 else { continue }
            var byte: UInt8 = 0
            guard read(handle.fileDescriptor, &byte, 1) == 1 else { break }
            if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        throw Subprocess.Failure(description: "\(name) printed no line within \(timeout) s (exited: \(!isRunning))")
    }

    /// Stops the program: SIGTERM, then SIGKILL after `grace` seconds.
    public func stop(grace: TimeInterval = 2) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(grace)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}
