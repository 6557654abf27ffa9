import Digest
import Foundation

/// Item 16: HMAC-SHA256 over the 1504 bytes an RTMP digest handshake signs (C1/S1 without its 32-byte digest), as
/// `HandshakeDigest` calls it, beside OpenSSL's (`openssl speed -hmac sha256 -bytes 1504`, assembly with the CPU's
/// SHA extensions). Every RTMP connection pays a few of these, every signed token and stream key tag one.
struct DigestBench {
    let context: BenchContext
    static let messageBytes = 1504

    func run(into report: Report) throws {
        let seconds = context.quick ? 0.5 : 2.0
        let ours = Self.measure(seconds: seconds)
        let log = context.file("openssl-speed.log")
        _ = try ChildProcess.run("openssl", ["speed", "-seconds", "\(Int(seconds.rounded(.up)))", "-bytes",
                                             "\(Self.messageBytes)", "-hmac", "sha256"], logFile: log)
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        // "hmac(sha256)   1737267.36k": thousands of bytes per second.
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("hmac(sha256)") }),
              let field = line.split(separator: " ").last, field.hasSuffix("k"),
              let kilobytes = Double(field.dropLast()), kilobytes > 0 else {
            throw BenchError("openssl speed printed no hmac(sha256) figure: \(text.suffix(300))")
        }
        let peer = Double(Self.messageBytes) / (kilobytes * 1000) * 1e6
        report.record("16 HMAC-SHA256 1504 B", "time per HMAC", unit: "us", ours: ours, peer: peer,
                      peerName: "OpenSSL (openssl speed)",
                      note: "Digest's pure-Swift SHA-256 over a handshake packet's signed span (two slices joined, "
                        + "as HandshakeDigest passes it), 62-byte key; OpenSSL over 1504-byte buffers")
    }

    /// Microseconds per HMAC, over at least `seconds` of repeated work.
    static func measure(seconds: Double) -> Double {
        var packet = [UInt8](repeating: 0, count: 1536)
        for index in packet.indices { packet[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
        let key = [UInt8](repeating: 0x42, count: 62)
        var check: UInt8 = 0
        var rounds = 0
        let start = Measure.now()
        while Measure.now() - start < seconds {
            for _ in 0..<100 {
                packet[0] = UInt8(truncatingIfNeeded: rounds)
                check ^= HMACSHA256.authenticationCode(key: key, message: packet[0..<8] + packet[40..<1536])[0]
                rounds += 1
            }
        }
        let elapsed = Measure.now() - start
        // `check` keeps the work from being optimised away.
        precondition(check != 0 || rounds > 0)
        return elapsed * 1e6 / Double(rounds)
    }
}
