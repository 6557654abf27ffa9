import Digest
import Testing
@testable import RTMP

struct ServerHandshakeTests {
    let serverRandom = pseudoRandomBytes(1528, seed: 3)

    /// Feeds the client's bytes and collects what the server replies.
    private func run(_ pieces: [[UInt8]], on handshake: inout ServerHandshake) throws
        -> (reply: [UInt8], remaining: [UInt8], complete: Bool) {
        var reply: [UInt8] = []
        var remaining: [UInt8] = []
        var complete = false
        for piece in pieces {
            let step = try handshake.receive(piece)
            reply += step.reply
            if step.isComplete {
                complete = true
                remaining += step.remaining
            }
        }
        return (reply, remaining, complete)
    }

    @Test(arguments: Feeding.allCases)
    func plainClientGetsEchoHandshake(feeding: Feeding) throws {
        let c1 = [0, 0, 0, 5]                                   // C1 time
            + [0, 0, 0, 0]                                      // C1 zero: a plain (non-digest) client
            + pseudoRandomBytes(1528, seed: 4)                  // C1 random
        let c2 = [UInt8](repeating: 0x55, count: 1536)          // a C2 that does not echo S1: accepted anyway
        let connectStart: [UInt8] = [0x03, 0x00, 0x00]          // chunk bytes right behind C2
        var handshake = ServerHandshake(time: 0x0A0B_0C0D, random: serverRandom)
        let result = try run(feeding.pieces([0x03] + c1 + c2, next: connectStart), on: &handshake)
        #expect(result.complete)
        #expect(handshake.kind == .plain)
        #expect(result.reply.count == 1 + 1536 + 1536)
        #expect(result.reply[0] == 0x03)                                 // S0
        #expect(Array(result.reply[1...4]) == [0x0A, 0x0B, 0x0C, 0x0D])  // S1 time
        #expect(Array(result.reply[5...8]) == [0, 0, 0, 0])              // S1 zero
        #expect(Array(result.reply[9...1536]) == serverRandom)           // S1 random
        #expect(Array(result.reply[1537...]) == c1)                      // S2 echoes C1
        #expect(result.remaining == connectStart)
    }

    @Test func answersAsSoonAsC1IsComplete() throws {
        var handshake = ServerHandshake(time: 0, random: serverRandom)
        let c0c1 = [0x03] + [UInt8](repeating: 0, count: 1536)
        #expect(try handshake.receive(Array(c0c1.dropLast())).reply.isEmpty)
        let step = try handshake.receive([c0c1.last!])
        #expect(step.reply.count == 3073)
        #expect(!step.isComplete)
    }

    @Test(arguments: [UInt8(ascii: "G"), UInt8(ascii: "P"), 0x16, 0x06, 0x00])
    func garbageC0IsATypedError(first: UInt8) {
        var handshake = ServerHandshake(time: 0, random: serverRandom)
        // An HTTP request ("GET / HTTP/1.1"), a TLS ClientHello (0x16), RTMPE (6), nonsense.
        #expect { try handshake.receive([first, 0x45, 0x54]) } throws: { error in
            guard let error = error as? RTMPError else { return false }
            return error.code == .unsupportedVersion && error.description.contains("version \(first)")
        }
    }

    /// Builds a digest C1 the way Flash/ffmpeg/OBS do, computing the offset by hand rather than with the module's
    /// helper: offset = (sum of the 4 offset bytes) % 728 + base + 4, digest = HMAC-SHA256 with the 30-byte
    /// player key over C1 without the digest.
    static func digestC1(offsetBase: Int) -> (c1: [UInt8], digest: [UInt8]) {
        var c1 = [0, 0, 0, 0]                                   // time
            + [9, 0, 124, 2]                                    // version (non-zero: digest handshake)
            + pseudoRandomBytes(1528, seed: 5)
        let sum = Int(c1[offsetBase]) + Int(c1[offsetBase + 1]) + Int(c1[offsetBase + 2]) + Int(c1[offsetBase + 3])
        let offset = sum % 728 + offsetBase + 4
        let key = Array("Genuine Adobe Flash Player 001".utf8)
        #expect(key.count == 30)
        let digest = HMACSHA256.authenticationCode(key: key, message: c1[..<offset] + c1[(offset + 32)...])
        c1.replaceSubrange(offset..<(offset + 32), with: digest)
        return (c1, digest)
    }

    @Test(arguments: [8, 772])
    func digestClientGetsSignedS1AndS2(offsetBase: Int) throws {
        let (c1, clientDigest) = Self.digestC1(offsetBase: offsetBase)
        #expect(HandshakeDigest.findClientDigest(in: c1)?.digest == clientDigest)
        var handshake = ServerHandshake(time: 0, random: serverRandom)
        let step = try handshake.receive([0x03] + c1)
        #expect(handshake.kind == .digest)
        let s1 = Array(step.reply[1...1536])
        let s2 = Array(step.reply[1537...])
        #expect(s1[4...7].contains { $0 != 0 })                 // S1 version: non-zero announces a digest
        // S1 digest at the same scheme, keyed with the first 36 bytes of the server key.
        let sum = Int(s1[offsetBase]) + Int(s1[offsetBase + 1]) + Int(s1[offsetBase + 2]) + Int(s1[offsetBase + 3])
        let offset = sum % 728 + offsetBase + 4
        let serverKey = Array("Genuine Adobe Flash Media Server 001".utf8)
        #expect(serverKey.count == 36)
        let expectedS1Digest = HMACSHA256.authenticationCode(key: serverKey,
                                                             message: s1[..<offset] + s1[(offset + 32)...])
        #expect(Array(s1[offset..<(offset + 32)]) == expectedS1Digest)
        // S2 signature: HMAC(key: HMAC(68-byte server key, C1 digest), S2[0..<1504]).
        let tail = hexBytes("f0eec24a8068bee82e00d0d1029e7e576eec5d2d29806fab93b8e636cfeb31ae")
        let signingKey = HMACSHA256.authenticationCode(key: serverKey + tail, message: clientDigest)
        #expect(Array(s2[1504...]) == HMACSHA256.authenticationCode(key: signingKey, message: s2[..<1504]))
    }

    @Test func digestClientWithWrongDigestFallsBackToEcho() throws {
        var (c1, _) = Self.digestC1(offsetBase: 8)
        c1[1000] ^= 0xFF                                        // breaks the digest (for both schemes)
        var handshake = ServerHandshake(time: 0, random: serverRandom)
        let step = try handshake.receive([0x03] + c1)
        #expect(handshake.kind == .plain)
        #expect(Array(step.reply[1537...]) == c1)
    }
}
