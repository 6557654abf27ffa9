import Foundation
import Locking
import TestSupport
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
    private let count = Watched(0)
    var total: Int { count.value }
    /// Returns once `total` bytes in all came.
    func wait(forTotal total: Int, within timeout: Duration = .seconds(10)) async throws {
        try await count.wait("\(total) bytes read", within: timeout) { $0 >= total }
    }
    func connectionDidRead(_ connection: Connection, bytes: [UInt8]) { count.update { $0 += bytes.count } }
    func connectionDidClose(_ connection: Connection, error: TransportError?) { log?.record(error) }
}

/// Records how server-side connections closed, for checks from the test's thread.
final class CloseLog: Sendable {
    private let entries = Watched<[TransportError?]>([])

    var all: [TransportError?] { entries.value }

    func record(_ error: TransportError?) {
        entries.update { $0.append(error) }
    }

    /// Waits up to `timeout` for at least `count` entries, and returns them (fewer if the time ran out: the caller's
    /// expectation shows what came).
    func wait(for count: Int, timeout: Duration = .seconds(5)) async throws -> [TransportError?] {
        do {
            return try await entries.wait("\(count) closes", within: timeout) { $0.count >= count }
        } catch is WaitTimeout {
            return all
        }
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

    /// The certificates of this test run, made once (by the first caller; the others wait for it).
    static func get() async throws -> TestCertificates {
        try await CertificateStore.shared.certificates()
    }

    fileprivate static func make() async throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("transport-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        func make(_ name: String, subject: String, altNames: String, key: [String]) throws {
            let result = try Subprocess.run("openssl", ["req", "-x509", "-newkey"] + key + [
                "-nodes", "-keyout", path("\(name)-key.pem"), "-out", path("\(name)-cert.pem"), "-days", "2",
                "-subj", subject, "-addext", "subjectAltName=\(altNames)",
            ])
            try #require(result.status == 0, "openssl req failed: \(result.stderr)")
        }
        let ec = ["ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
        try make("server", subject: "/CN=127.0.0.1", altNames: "IP:127.0.0.1,DNS:localhost", key: ["rsa:2048"])
        try make("other", subject: "/CN=other.example", altNames: "DNS:other.example", key: ec)
        try make("ca", subject: "/CN=Stream Test CA", altNames: "DNS:ca.example", key: ec)
        try make("issued", subject: "/CN=127.0.0.1", altNames: "IP:127.0.0.1",
                 key: ec + ["-CA", path("ca-cert.pem"), "-CAkey", path("ca-key.pem")])
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

/// An event loop whose timers count in a ``ManualClock``: time passes only in ``advance(by:)``, which returns once
/// every timer due by then has run, so a test of timers neither sleeps nor depends on how busy the machine is.
struct ManualClockLoop {
    let loop: EventLoop
    let clock = ManualClock()

    init(name: String = "test-manual-clock") throws {
        loop = try EventLoop(name: name, clock: clock)
    }

    /// Moves the loop's time forward by `delay` and returns after the timers due by then (and those they scheduled
    /// within it) have run.
    func advance(by delay: Duration) async throws {
        let clock = self.clock
        // Moved on the loop thread between two turns: the next turn, which the second submit wakes, reads the new
        // time before its timers, and runs the submitted no-op after them.
        try await loop.submit { clock.advance(by: delay) }
        try await loop.submit {}
    }
}

/// Runs `body` with a fresh manual-clock loop and shuts the loop down afterwards.
func withManualClockLoop<Result>(_ body: (ManualClockLoop) async throws -> Result) async throws -> Result {
    let manual = try ManualClockLoop()
    defer { manual.loop.shutdown() }
    return try await body(manual)
}
