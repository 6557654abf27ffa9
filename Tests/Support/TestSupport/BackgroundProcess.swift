import Foundation
import Locking

/// A program the test runs alongside itself (Xvfb, ffplay, pulseaudio, paplay), stopped by ``stop()`` or when the
/// value is released.
///
/// Started with `posix_spawn` and reaped with `waitpid` directly: Foundation's `Process` did not notice some of
/// these children exiting, which hung tests.
public final class BackgroundProcess: Sendable {
    private let processID: pid_t
    private let outputDescriptor: Int32
    /// The exit status once reaped (128 + signal for a killed program).
    private let exitStatus = Locked<Int32?>(nil)
    /// The program's name, for messages.
    public let name: String
    /// Holds the file standard input is read from, until the program has exited.
    private let inputDirectory: TemporaryDirectory?

    /// Starts `executable` (found on PATH) with `arguments`; its standard output is readable with
    /// ``readLine(timeout:)``, its standard error goes to `errorLog` (or is discarded).
    /// - Parameters:
    ///   - environment: extra variables on top of this process's environment.
    ///   - stdin: what the program reads on standard input (through a 0600 file in a temporary directory, removed
    ///     when this value is released), or nothing (`/dev/null`).
    /// - Throws: when the program is not installed or cannot start.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                errorLog: String? = nil, stdin: String? = nil) throws {
        name = executable
        let path = try Subprocess.resolve(executable)
        var pipeDescriptors: [Int32] = [0, 0]
        guard pipe(&pipeDescriptors) == 0 else {
            throw Subprocess.Failure(description: "pipe failed for \(executable)")
        }
        // Close-on-exec, so other children do not inherit this pipe and keep it open.
        for descriptor in pipeDescriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var input = "/dev/null"
        if let stdin {
            let directory = try TemporaryDirectory("stdin")
            input = directory.file("stdin")
            try stdin.write(toFile: input, atomically: false, encoding: .utf8)
            chmod(input, 0o600)
            inputDirectory = directory
        } else {
            inputDirectory = nil
        }
        posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeDescriptors[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, errorLog ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, nil, argv, envp)
        close(pipeDescriptors[1])
        guard status == 0 else {
            close(pipeDescriptors[0])
            throw Subprocess.Failure(description: "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        processID = pid
        outputDescriptor = pipeDescriptors[0]
    }

    /// The process id.
    public var pid: Int32 { processID }

    /// Whether it is still running (reaps it when it has exited, keeping its exit status).
    public var isRunning: Bool {
        exitStatus.withLock { exitStatus in
            if exitStatus == nil { exitStatus = Self.reap(processID, blocking: false) }
            return exitStatus == nil
        }
    }

    /// `waitpid`: the exit status (128 + signal when killed), or nil when it has not exited (non-blocking).
    private static func reap(_ pid: pid_t, blocking: Bool) -> Int32? {
        var status: Int32 = 0
        guard waitpid(pid, &status, blocking ? 0 : WNOHANG) == pid else { return nil }
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// Reads the first line the program prints on standard output (blocking up to `timeout`).
    public func readLine(timeout: TimeInterval = 10) throws -> String {
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var poller = pollfd(fd: outputDescriptor, events: Int16(POLLIN), revents: 0)
        while Date() < deadline {
            guard poll(&poller, 1, 100) > 0 else { continue }
            var byte: UInt8 = 0
            guard read(outputDescriptor, &byte, 1) == 1 else { break }
            if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        throw Subprocess.Failure(description: "\(name) printed no line within \(timeout) s (exited: \(!isRunning))")
    }

    /// Waits for the program to exit by itself.
    /// - Returns: its exit status, or nil when it is still running after `timeout` (it is then killed).
    public func waitForExit(timeout: TimeInterval = 30) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if !isRunning { return exitStatus.withLock { $0 } }
            usleep(10_000)
        }
        stop()
        return nil
    }

    /// Stops the program: SIGTERM, then SIGKILL after `grace` seconds, and reaps it.
    public func stop(grace: TimeInterval = 2) {
        guard isRunning else { return }
        kill(processID, SIGTERM)
        let deadline = Date().addingTimeInterval(grace)
        while isRunning && Date() < deadline { usleep(10_000) }
        exitStatus.withLock { exitStatus in
            guard exitStatus == nil else { return }
            kill(processID, SIGKILL)
            exitStatus = Self.reap(processID, blocking: true)
        }
    }

    /// Kills the program at once (SIGKILL, as a crash would end it) and reaps it.
    public func crash() {
        exitStatus.withLock { exitStatus in
            guard exitStatus == nil else { return }
            kill(processID, SIGKILL)
            exitStatus = Self.reap(processID, blocking: true)
        }
    }

    deinit {
        stop()
        close(outputDescriptor)
    }
}
