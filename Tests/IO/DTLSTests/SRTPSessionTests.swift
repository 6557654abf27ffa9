import Foundation
@testable import SRTP
import Testing
import TestSupport

private func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8)
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
}

private func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// An RTP packet: version 2, payload type 96, then `payload`.
private func rtp(sequence: UInt16, ssrc: UInt32 = 0x1122_3344, timestamp: UInt32 = 90_000, payload: [UInt8]? = nil)
    -> [UInt8] {
    [0x80, 0x60, UInt8(sequence >> 8), UInt8(sequence & 0xFF)] + bigEndian(timestamp) + bigEndian(ssrc)
        + (payload ?? Array(repeating: UInt8(truncatingIfNeeded: sequence), count: 40))
}

/// An RTCP sender report of `ssrc`, with `count` in its RTP timestamp field.
private func senderReport(ssrc: UInt32, count: UInt32) -> [UInt8] {
    [0x80, 0xC8, 0x00, 0x06] + bigEndian(ssrc) + bigEndian(0xE000_0000) + bigEndian(count) + bigEndian(count * 960)
        + bigEndian(count) + bigEndian(count * 100)
}

private func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
}

private func code(_ body: () throws -> [UInt8]) -> SRTPError.Code? {
    do {
        _ = try body()
        return nil
    } catch let error as SRTPError {
        return error.code
    } catch {
        return nil
    }
}

/// RFC 3711 Appendix B.3's master key and salt, which libsrtp's own test driver uses too.
private let rfcMasterKey = hex("E1F97A0D3E018BE0D64FA32C06DE4139") + hex("0EC675AD498AFEEBB6960B3AABE6")

struct SRTPSessionTests {
    /// RFC 3711 Appendix B.2: the AES-CM keystream of session key 2B7E…, salt F0F1…FD, SSRC 0, index 0.
    @Test func theCounterModeKeystreamIsAppendixB2s() throws {
        let stream = try SRTPKeys.keystream(key: hex("2B7E151628AED2A6ABF7158809CF4F3C"),
                                            iv: hex("F0F1F2F3F4F5F6F7F8F9FAFBFCFD0000"), length: 48)
        #expect(stream == hex("E03EAD0935C95E80E166B16DD92B4EB4") + hex("D23513162B02D0F72A43A2FE4A5F97AB")
                + hex("41E95B3BB0A2E8DD477901E4FCA894C0"))
    }

    /// RFC 3711 Appendix B.3: the session keys of labels 0, 1, 2; and the SRTCP ones (labels 3, 4, 5) of the same
    /// master key, as libsrtp derives them.
    @Test func keyDerivationIsAppendixB3s() throws {
        let key = Array(rfcMasterKey[0..<16])
        let salt = Array(rfcMasterKey[16...])
        #expect(try SRTPKeys.derive(key, salt, label: 0, length: 16) == hex("C61E7A93744F39EE10734AFE3FF7A087"))
        #expect(try SRTPKeys.derive(key, salt, label: 1, length: 20)
                == hex("CEBE321F6FF7716B6FD4AB49AF256A156D38BAA4"))
        #expect(try SRTPKeys.derive(key, salt, label: 2, length: 14) == hex("30CBBC08863D8C85D49DB34A9AE1"))
        #expect(try SRTPKeys.derive(key, salt, label: 3, length: 16) == hex("4C1AA45A81F73D61C800BBB00FBB1EAA"))
        #expect(try SRTPKeys.derive(key, salt, label: 4, length: 20)
                == hex("8D54534FEB49AE8E7993A6BD0B844FC323A93DFD"))
        #expect(try SRTPKeys.derive(key, salt, label: 5, length: 14) == hex("9581C7AD87B3E530BF3E4454A8B3"))
    }

    /// libsrtp's test driver's reference packet (srtp_driver.c), protected under the Appendix B.3 key.
    @Test func aPacketIsProtectedAsLibsrtpsReferenceVector() throws {
        let sender = try SRTPSession(masterKey: rfcMasterKey, direction: .outbound)
        let plain = hex("800f1234decafbadcafebabe") + Array(repeating: 0xAB, count: 16)
        let expected = hex("800f1234decafbadcafebabe4e55dc4ce79978d88ca4d215949d2402b78d6acc99ea179b8dbb")
        #expect(try sender.protect(rtp: plain) == expected)
        let receiver = try SRTPSession(masterKey: rfcMasterKey, direction: .inbound)
        #expect(try receiver.unprotect(rtp: expected) == plain)
    }

    @Test func packetsGoThereAndBackAndAlteredOrReplayedOnesAreDropped() throws {
        let key = Array(0..<30).map(UInt8.init)
        let sender = try SRTPSession(masterKey: key, direction: .outbound)
        let receiver = try SRTPSession(masterKey: key, direction: .inbound)
        let first = rtp(sequence: 7)
        let protected = try sender.protect(rtp: first)
        #expect(protected.count == first.count + 10)
        #expect(Array(protected.prefix(12)) == Array(first.prefix(12)))
        #expect(protected[12..<first.count] != first[12...])
        #expect(try receiver.unprotect(rtp: protected) == first)
        #expect(code { try receiver.unprotect(rtp: protected) } == .replay)

        var altered = try sender.protect(rtp: rtp(sequence: 8))
        altered[altered.count - 1] ^= 1
        #expect(code { try receiver.unprotect(rtp: altered) } == .authentication)
        altered = try sender.protect(rtp: rtp(sequence: 9))
        altered[20] ^= 0x40
        #expect(code { try receiver.unprotect(rtp: altered) } == .authentication)
        // A failed packet is not remembered: the genuine one with that number still goes through.
        #expect(try receiver.unprotect(rtp: sender.protect(rtp: rtp(sequence: 9))) == rtp(sequence: 9))
        // A wrong key fails authentication.
        let stranger = try SRTPSession(masterKey: key.map { $0 ^ 1 }, direction: .inbound)
        #expect(code { try stranger.unprotect(rtp: protected) } == .authentication)
    }

    /// A NACK answer protects a sequence number again: the same bytes, accepted once by a receiver that lost the
    /// first copy. Late and reordered packets within the window go through; those below it do not.
    @Test func retransmissionsAndReorderingWithinTheWindowAreAccepted() throws {
        let key = Array(repeating: UInt8(0x5A), count: 30)
        let sender = try SRTPSession(masterKey: key, direction: .outbound)
        let receiver = try SRTPSession(masterKey: key, direction: .inbound)
        var sent: [UInt16: [UInt8]] = [:]
        for sequence in UInt16(100)..<1700 { sent[sequence] = try sender.protect(rtp: rtp(sequence: sequence)) }
        #expect(try sender.protect(rtp: rtp(sequence: 150)) == sent[150])
        for sequence in UInt16(100)..<1700 where sequence != 500 && sequence != 1650 {
            _ = try receiver.unprotect(rtp: #require(sent[sequence]))
        }
        #expect(try receiver.unprotect(rtp: #require(sent[1650])) == rtp(sequence: 1650))  // 49 late
        #expect(code { try receiver.unprotect(rtp: sent[500]!) } == .replay)  // 1199 below the highest: too old
        #expect(code { try receiver.unprotect(rtp: sent[1600]!) } == .replay)
    }

    /// RFC 3711 §3.3.1: the rollover counter goes up at the wrap, and a late packet from before it is still
    /// decrypted with the old one.
    @Test func theRolloverCounterCarriesPacketsAcrossTheSequenceWrap() throws {
        let key = Array(repeating: UInt8(0x33), count: 30)
        let sender = try SRTPSession(masterKey: key, direction: .outbound)
        let receiver = try SRTPSession(masterKey: key, direction: .inbound)
        let sequences: [UInt16] = [65533, 65534, 65535, 0, 1, 2]
        let protected = try sequences.map { try sender.protect(rtp: rtp(sequence: $0)) }
        // Seq 0 after the wrap is index 65536: a different keystream (and tag) from seq 0 before it.
        let fresh = try SRTPSession(masterKey: key, direction: .outbound)
        #expect(try fresh.protect(rtp: rtp(sequence: 0)) != protected[3])
        for index in [0, 1, 3, 4, 2, 5] {  // 65535 comes after the wrap
            #expect(try receiver.unprotect(rtp: protected[index]) == rtp(sequence: sequences[index]))
        }
        // A NACK for 65534 after the wrap: protected again under the old counter, the same bytes.
        #expect(try sender.protect(rtp: rtp(sequence: 65534)) == protected[1])
    }

    @Test func rtcpGoesThereAndBackWithItsOwnIndex() throws {
        let key = Array(repeating: UInt8(0x77), count: 30)
        let sender = try SRTPSession(masterKey: key, direction: .outbound)
        let receiver = try SRTPSession(masterKey: key, direction: .inbound)
        let report = senderReport(ssrc: 0x0457, count: 1)
        let first = try sender.protect(rtcp: report)
        #expect(first.count == report.count + 14)
        #expect(Array(first[report.count..<report.count + 4]) == [0x80, 0, 0, 0])  // E flag, index 0
        let second = try sender.protect(rtcp: report)
        #expect(Array(second[report.count..<report.count + 4]) == [0x80, 0, 0, 1])
        #expect(first != second)
        #expect(try receiver.unprotect(rtcp: second) == report)
        #expect(try receiver.unprotect(rtcp: first) == report)
        #expect(code { try receiver.unprotect(rtcp: first) } == .replay)
        var altered = try sender.protect(rtcp: report)
        altered[report.count + 3] ^= 1  // the index is authenticated too
        #expect(code { try receiver.unprotect(rtcp: altered) } == .authentication)
    }

    @Test func malformedPacketsAreRefusedInWords() throws {
        let key = Array(repeating: UInt8(0x11), count: 30)
        let sender = try SRTPSession(masterKey: key, direction: .outbound)
        let receiver = try SRTPSession(masterKey: key, direction: .inbound)
        #expect(code { try SRTPSession(masterKey: [1, 2, 3], direction: .outbound).protect(rtp: []) } == .setup)
        let good = rtp(sequence: 1)
        var cases: [[UInt8]] = [[], [0x80], Array(good.prefix(11)),
                                [0x40] + good.dropFirst(),  // version 1
                                [0x8F] + good.dropFirst(),  // 15 CSRCs in a 52-byte packet
                                [0x90] + good.dropFirst()]  // an extension whose length runs past the end
        cases[5][14] = 0xFF
        cases[5][15] = 0xFF
        let padded = [0xA0] + good.dropFirst().dropLast() + [41]  // 41 bytes of padding in a 40-byte payload
        for packet in cases {
            #expect(code { try sender.protect(rtp: packet) } == .packet, "\(packet)")
            #expect(code { try receiver.unprotect(rtp: packet) } == .packet, "\(packet)")
        }
        #expect(code { try sender.protect(rtp: padded) } == .packet)
        let rtcpCases: [[UInt8]] = [[], Array(repeating: 0x80, count: 7),
                                    [0x40] + senderReport(ssrc: 1, count: 1).dropFirst()]
        for packet in rtcpCases {
            #expect(code { try sender.protect(rtcp: packet) } == .packet, "\(packet)")
        }
        for length in [0, 8, 21] {
            #expect(code { try receiver.unprotect(rtcp: Array(repeating: 0x80, count: length)) } == .packet)
        }
        do {
            _ = try sender.protect(rtp: [0x40] + good.dropFirst())
        } catch {
            #expect(error.message.contains("RTP version 1, not 2"), "\(error)")
        }
        // Padding that fits, and an extension and CSRCs within the packet, are fine.
        let fine = [0xB1] + good[1..<12] + bigEndian(0xABCD) + [0xBE, 0xDE, 0, 1] + bigEndian(7) + [1, 2, 3, 3]
        #expect(try receiver.unprotect(rtp: sender.protect(rtp: fine)) == fine)
    }

    /// Past ``SRTPSession/maximumSSRCs`` SSRCs a session refuses a new one; forged packets do not use up room.
    @Test func aSessionTracksABoundedNumberOfSSRCs() throws {
        let key = Array(repeating: UInt8(0x22), count: 30)
        let sender = try SRTPSession(masterKey: key, direction: .outbound)
        let receiver = try SRTPSession(masterKey: key, direction: .inbound)
        let forger = try SRTPSession(masterKey: key.map { ~$0 }, direction: .outbound)
        for ssrc in UInt32(1)...200 {
            let forged = try forger.protect(rtp: rtp(sequence: 1, ssrc: 5000 + ssrc % 60))
            #expect(code { try receiver.unprotect(rtp: forged) } == .authentication)
        }
        for ssrc in UInt32(1)...UInt32(SRTPSession.maximumSSRCs) {
            _ = try receiver.unprotect(rtp: sender.protect(rtp: rtp(sequence: 1, ssrc: ssrc)))
        }
        do {
            _ = try sender.protect(rtp: rtp(sequence: 1, ssrc: 9999))
            Issue.record("a 65th SSRC was protected")
        } catch {
            #expect(error.code == .packet && error.message.contains("64"), "\(error)")
        }
        // Known SSRCs go on.
        let known = rtp(sequence: 2, ssrc: 64)
        #expect(try receiver.unprotect(rtp: sender.protect(rtp: known)) == known)
    }

    /// Interop with libsrtp, which we did not write: pylibsrtp (aiortc's) unprotects what we protect and protects
    /// what we then unprotect, RTP across a sequence wrap and with CSRCs, an extension and padding, and RTCP.
    @Test func libsrtpReadsWhatWeProtectAndWeReadWhatItProtects() throws {
        let ourKey = (0..<30).map { UInt8($0 * 7 & 0xFF) }
        let theirKey = (0..<30).map { UInt8(($0 * 13 + 5) & 0xFF) }
        var packets: [(kind: String, plain: [UInt8])] = []
        for sequence in [65530, 65531, 65532, 65533, 65534, 65535, 0, 1, 2, 3] as [UInt16] {
            packets.append(("rtp", rtp(sequence: sequence, timestamp: UInt32(sequence) * 3000)))
        }
        let decorated = [0xB1, 0xE0, 0x12, 0x34] + bigEndian(1234) + bigEndian(0xCAFE_BABE) + bigEndian(0x0102_0304)
            + [0xBE, 0xDE, 0, 1, 0x10, 0x7F, 0, 0] + Array(repeating: 0x42, count: 100) + [0, 0, 3]
        packets.append(("rtp", decorated))
        for count in UInt32(1)...3 {
            packets.append(("rtcp", senderReport(ssrc: 0x1122_3344, count: count)))
            packets.append(("rtcp", senderReport(ssrc: 0xCAFE_BABE, count: count) + [0x81, 0xCA, 0, 2]
                            + bigEndian(0xCAFE_BABE) + [1, 2, 0x61, 0x62]))
        }
        let sender = try SRTPSession(masterKey: ourKey, direction: .outbound)
        var input = hexString(ourKey) + "\n" + hexString(theirKey) + "\n"
        for packet in packets {
            let protected = packet.kind == "rtp" ? try sender.protect(rtp: packet.plain)
                : try sender.protect(rtcp: packet.plain)
            input += "\(packet.kind):\(hexString(packet.plain)):\(hexString(protected))\n"
        }
        let result = try Subprocess.run("python3", ["-c", Self.libsrtpPeer], timeout: 60, stdin: Data(input.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == packets.count, "\(result.stdout) \(result.stderr)")
        let receiver = try SRTPSession(masterKey: theirKey, direction: .inbound)
        for (line, packet) in zip(lines, packets) {
            let fields = line.split(separator: ":")
            #expect(fields.first.map(String.init) == packet.kind)
            let theirs = hex(String(fields[1]))
            let plain = packet.kind == "rtp" ? try receiver.unprotect(rtp: theirs)
                : try receiver.unprotect(rtcp: theirs)
            #expect(plain == packet.plain)
        }
    }

    /// Reads the two keys, then `kind:plain:protected` lines: unprotects each with our key (inbound), checks the
    /// plain bytes, and prints `kind:protected` under its own key (outbound).
    static let libsrtpPeer = """
        import sys
        import pylibsrtp

        lines = sys.stdin.read().split()
        ours, theirs = bytes.fromhex(lines[0]), bytes.fromhex(lines[1])
        inbound = pylibsrtp.Session(pylibsrtp.Policy(key=ours, ssrc_type=pylibsrtp.Policy.SSRC_ANY_INBOUND))
        outbound = pylibsrtp.Session(pylibsrtp.Policy(key=theirs, ssrc_type=pylibsrtp.Policy.SSRC_ANY_OUTBOUND))
        for line in lines[2:]:
            kind, plain, protected = line.split(":")
            plain, protected = bytes.fromhex(plain), bytes.fromhex(protected)
            if kind == "rtp":
                opened, again = inbound.unprotect(protected), outbound.protect(plain)
            else:
                opened, again = inbound.unprotect_rtcp(protected), outbound.protect_rtcp(plain)
            if opened != plain:
                sys.exit("libsrtp unprotected %s %s as %s" % (kind, plain.hex(), opened.hex()))
            print("%s:%s" % (kind, again.hex()))
        """
}
