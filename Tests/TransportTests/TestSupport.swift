import Foundation
import Locking
import Testing
@testable import Transport

/// Runs `body` with a fresh event loop and shuts the loop down afterwards.
func withLoop<Result>(_ body: (EventLoop) async throws -> Result) async throws -> Result {
    let loop = try EventLoop(name: "test-loop")
    defer { loop.shutdown() }
    return try await body(loop)
}

/// A port that nothing listens on right now (bound, read back, released).
func freePort(on loop: EventLoop) async throws -> Int {
    try await loop.submit {
        let listener = try Listener.listen(port: 0, maxConnections: 1, on: loop) { $0.close() }
        defer { listener.close() }
        return listener.localPort
    }
}

/// Starts a listener on the loop; `makeHandler` runs on the loop for each accepted connection.
func startListener(on loop: EventLoop, host: String = "127.0.0.1", tls: TLSServerConfiguration? = nil,
                   maxConnections: Int = 16, handshakeTimeout: Duration = .seconds(5),
                   configure: @escaping @Sendable (Connection) -> Void) async throws
    -> (port: Int, listener: LoopBound<Listener>) {
    try await loop.submit {
        let listener = try Listener.listen(host: host, port: 0, tls: tls, maxConnections: maxConnections,
                                           handshakeTimeout: handshakeTimeout, on: loop, onAccept: configure)
        return (listener.localPort, LoopBound(listener, loop: loop))
    }
}

/// Sends back everything it reads. Pauses reading while more than 1 MiB waits to go out (backpressure).
final class EchoHandler: ConnectionHandler {
    func connectionDidRead(_ connection: Connection, bytes: [UInt8]) {
        #expect(throws: Never.self) { try connection.write(bytes) }
        if connection.queuedBytes > 1024 * 1024 { connection.pauseReading() }
    }

    func connectionDidDrain(_ connection: Connection) {
        connection.resumeReading()
    }

    func connectionDidClose(_ connection: Connection, error: TransportError?) {}
}

/// Says "hello\n" when the connection opens, echoes the first chunk it reads, then closes after flushing.
final class GreetEchoOnceHandler: ConnectionHandler {
    func connectionDidOpen(_ connection: Connection) {
        #expect(throws: Never.self) { try connection.write(Array("hello\n".utf8)) }
    }

    func connectionDidRead(_ connection: Connection, bytes: [UInt8]) {
        #expect(throws: Never.self) { try connection.write(bytes) }
        connection.closeAfterFlush(timeout: .seconds(2))
    }

    func connectionDidClose(_ connection: Connection, error: TransportError?) {}
}

/// Does nothing: a peer that never speaks.
final class SilentHandler: ConnectionHandler {
    func connectionDidRead(_ connection: Connection, bytes: [UInt8]) {}
    func connectionDidClose(_ connection: Connection, error: TransportError?) {}
}

/// Counts the bytes it reads; readable from any thread.
final class ByteCounter: ConnectionHandler, Sendable {
    let log: CloseLog?
    init(log: CloseLog? = nil) { self.log = log }
    private let count = Locked(0)
    var total: Int { count.withLock { $0 } }
    func connectionDidRead(_ connection: Connection, bytes: [UInt8]) { count.withLock { $0 += bytes.count } }
    func connectionDidClose(_ connection: Connection, error: TransportError?) { log?.record(error) }
}

/// Records how server-side connections closed, for checks from the test's thread.
final class CloseLog: Sendable {
    private let entries = Locked<[TransportError?]>([])

    var all: [TransportError?] { entries.withLock { $0 } }

    func record(_ error: TransportError?) {
        entries.withLock { $0.append(error) }
    }

    /// Waits up to `timeout` for at least `count` entries.
    func wait(for count: Int, timeout: Duration = .seconds(5)) async throws -> [TransportError?] {
        let deadline = ContinuousClock.now + timeout
        while entries.withLock({ $0.count }) < count && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        return all
    }
}

/// Forwards a close to a ``CloseLog``.
final class LoggingHandler: ConnectionHandler {
    let log: CloseLog
    init(log: CloseLog) { self.log = log }
    func connectionDidRead(_ connection: Connection, bytes: [UInt8]) {}
    func connectionDidClose(_ connection: Connection, error: TransportError?) { log.record(error) }
}

/// Reads until `count` bytes arrived or the stream ends.
func readExactly(_ count: Int, from connection: AsyncConnection) async throws -> [UInt8] {
    var received: [UInt8] = []
    received.reserveCapacity(count)
    while received.count < count, let chunk = try await connection.read() {
        received.append(contentsOf: chunk)
    }
    return received
}

/// Byte-for-byte equality with memcmp: an element-wise comparison of megabytes is slow in a debug build.
func sameBytes(_ first: [UInt8], _ second: [UInt8]) -> Bool {
    guard first.count == second.count else { return false }
    return first.withUnsafeBytes { a in
        second.withUnsafeBytes { b in
            guard let a = a.baseAddress, let b = b.baseAddress else { return true }
            return memcmp(a, b, first.count) == 0
        }
    }
}

/// A deterministic payload: a pseudo-random block of a prime length (65 521 bytes), repeated, so a lost,
/// duplicated or reordered chunk shows. Built by block copies, which stay fast in a debug build.
func payload(count: Int) -> [UInt8] {
    var state: UInt32 = 0x1234_5678
    let block = (0..<65_521).map { _ -> UInt8 in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    }
    var result: [UInt8] = []
    result.reserveCapacity(count)
    while result.count < count {
        result.append(contentsOf: block.prefix(count - result.count))
    }
    return result
}

/// The result of a finished child process.
struct ProcessOutput: Sendable {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

/// Runs a program to completion without blocking a Swift concurrency thread.
func run(_ executable: String, _ arguments: [String], input: String? = nil,
         in directory: URL? = nil) async throws -> ProcessOutput {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let output = Pipe()
    let error = Pipe()
    let inputPipe = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = inputPipe
    let collected = OutputCollector()
    output.fileHandleForReading.readabilityHandler = { collected.appendOutput($0.availableData) }
    error.fileHandleForReading.readabilityHandler = { collected.appendError($0.availableData) }
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
        process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
        do {
            try process.run()
        } catch {
            continuation.resume(throwing: error)
            return
        }
        if let input { inputPipe.fileHandleForWriting.write(Data(input.utf8)) }
        try? inputPipe.fileHandleForWriting.close()
    }
    output.fileHandleForReading.readabilityHandler = nil
    error.fileHandleForReading.readabilityHandler = nil
    collected.appendOutput(output.fileHandleForReading.readDataToEndOfFile())
    collected.appendError(error.fileHandleForReading.readDataToEndOfFile())
    return ProcessOutput(status: status, standardOutput: collected.output, standardError: collected.error)
}

/// Output gathered from pipe callbacks on other threads.
final class OutputCollector: Sendable {
    private let data = Locked<(output: Data, error: Data)>((Data(), Data()))
    private let exited = Locked(false)
    func markExited() { exited.withLock { $0 = true } }
    var hasExited: Bool { exited.withLock { $0 } }
    func appendOutput(_ bytes: Data) { data.withLock { $0.output.append(bytes) } }
    func appendError(_ bytes: Data) { data.withLock { $0.error.append(bytes) } }
    var output: String { String(decoding: data.withLock { $0.output }, as: UTF8.self) }
    var error: String { String(decoding: data.withLock { $0.error }, as: UTF8.self) }
}

/// Test certificates made with the openssl CLI in a temporary directory, once per test run.
struct TestCertificates: Sendable {
    /// Self-signed RSA certificate for IP 127.0.0.1 and DNS localhost: the usual server certificate and its own CA.
    var serverCertificate: String
    var serverKey: String
    /// Self-signed for DNS other.example only: a trusted chain for the wrong name.
    var otherNameCertificate: String
    var otherNameKey: String
    /// A test CA, and a certificate for IP 127.0.0.1 it issued.
    var authority: String
    var issuedCertificate: String
    var issuedKey: String
    var directory: URL

    /// The certificates of this test run, made on first use without blocking a concurrency thread.
    static func get() async throws -> TestCertificates {
        try await CertificateStore.shared.certificates()
    }

    fileprivate static func make() async throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("transport-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        func make(_ name: String, subject: String, altNames: String, key: [String]) async throws {
            let result = try await run("/usr/bin/openssl", ["req", "-x509", "-newkey"] + key + [
                "-nodes", "-keyout", path("\(name)-key.pem"), "-out", path("\(name)-cert.pem"), "-days", "2",
                "-subj", subject, "-addext", "subjectAltName=\(altNames)",
            ])
            try #require(result.status == 0, "openssl req failed: \(result.standardError)")
        }
        let ec = ["ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
        async let server: Void = make("server", subject: "/CN=127.0.0.1", altNames: "IP:127.0.0.1,DNS:localhost",
                                      key: ["rsa:2048"])
        async let other: Void = make("other", subject: "/CN=other.example", altNames: "DNS:other.example", key: ec)
        try await make("ca", subject: "/CN=Stream Test CA", altNames: "DNS:ca.example", key: ec)
        try await make("issued", subject: "/CN=127.0.0.1", altNames: "IP:127.0.0.1",
                       key: ec + ["-CA", path("ca-cert.pem"), "-CAkey", path("ca-key.pem")])
        _ = try await (server, other)
        return TestCertificates(serverCertificate: path("server-cert.pem"), serverKey: path("server-key.pem"),
                                otherNameCertificate: path("other-cert.pem"), otherNameKey: path("other-key.pem"),
                                authority: path("ca-cert.pem"), issuedCertificate: path("issued-cert.pem"),
                                issuedKey: path("issued-key.pem"), directory: directory)
    }

    var serverConfiguration: TLSServerConfiguration {
        TLSServerConfiguration(certificateFile: serverCertificate, privateKeyFile: serverKey)
    }

    var otherNameConfiguration: TLSServerConfiguration {
        TLSServerConfiguration(certificateFile: otherNameCertificate, privateKeyFile: otherNameKey)
    }

    var issuedConfiguration: TLSServerConfiguration {
        TLSServerConfiguration(certificateFile: issuedCertificate, privateKeyFile: issuedKey)
    }
}

/// Makes the test certificates once per run; concurrent callers share the one task.
private actor CertificateStore {
    static let shared = CertificateStore()
    private var making: Task<TestCertificates, any Error>?

    func certificates() async throws -> TestCertificates {
        if let making { return try await making.value }
        let task = Task { try await TestCertificates.make() }
        making = task
        return try await task.value
    }
}

/// A child process that runs until the test stops it (e.g. `openssl s_server`).
final class RunningProcess: Sendable {
    private let process: Process
    private let collected = OutputCollector()

    init(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = Pipe()
        let collected = self.collected
        output.fileHandleForReading.readabilityHandler = { collected.appendOutput($0.availableData) }
        error.fileHandleForReading.readabilityHandler = { collected.appendError($0.availableData) }
        process.terminationHandler = { _ in collected.markExited() }
        self.process = process
        try process.run()
    }

    var output: String { collected.output }
    var error: String { collected.error }

    /// Waits until the standard output contains `text`.
    func waitForOutput(_ text: String, timeout: Duration = .seconds(5)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !output.contains(text) {
            try #require(!collected.hasExited, "process exited early: \(error)")
            try #require(ContinuousClock.now < deadline, "no \"\(text)\" on output: \(output) \(error)")
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    deinit {
        // A test that failed before `stop()` must not leave its server behind.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Kills the process (by its id) and waits for it to end. SIGKILL, because `openssl s_server` started from
    /// the test runner was observed to survive SIGTERM on this machine.
    func stop() async throws {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
