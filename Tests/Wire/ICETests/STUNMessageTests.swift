import ByteIO
import Testing
@testable import ICE

/// RFC 5769 §2: the test vectors (attribute values are padded with spaces there, which RFC 8489 allows, so the
/// vectors are checked by reading them; what we write is checked by reading it back).
enum RFC5769 {
    static let password = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8)
    static let transactionID = hexBytes("b7 e7 a7 01 bc 34 d6 86 fa 87 df ae")

    /// §2.1 Sample Request.
    static let request = hexBytes("""
        00 01 00 58   21 12 a4 42
        b7 e7 a7 01   bc 34 d6 86   fa 87 df ae
        80 22 00 10   53 54 55 4e   20 74 65 73   74 20 63 6c   69 65 6e 74
        00 24 00 04   6e 00 01 ff
        80 29 00 08   93 2f f9 b1   51 26 3b 36
        00 06 00 09   65 76 74 6a   3a 68 36 76   59 20 20 20
        00 08 00 14   9a ea a7 0c   bf d8 cb 56   78 1e f2 b5   b2 d3 f2 49   c1 b5 71 a2
        80 28 00 04   e5 7a 3b cf
        """)
    // 00 01 00 58: Binding request, 88 bytes of attributes; 21 12 a4 42: magic cookie; 12 bytes: transaction id.
    // 80 22: SOFTWARE "STUN test client"; 00 24: PRIORITY 0x6e0001ff; 80 29: ICE-CONTROLLED tie-breaker;
    // 00 06: USERNAME "evtj:h6vY" + 3 bytes of padding; 00 08: MESSAGE-INTEGRITY; 80 28: FINGERPRINT.

    /// §2.2 Sample IPv4 Response: XOR-MAPPED-ADDRESS 192.0.2.1:32853.
    static let ipv4Response = hexBytes("""
        01 01 00 3c   21 12 a4 42
        b7 e7 a7 01   bc 34 d6 86   fa 87 df ae
        80 22 00 0b   74 65 73 74   20 76 65 63   74 6f 72 20
        00 20 00 08   00 01 a1 47   e1 12 a6 43
        00 08 00 14   2b 91 f5 99   fd 9e 90 c3   8c 74 89 f9   2a f9 ba 53   f0 6b e7 d7
        80 28 00 04   c0 7d 4c 96
        """)

    /// §2.3 Sample IPv6 Response: XOR-MAPPED-ADDRESS [2001:db8:1234:5678:11:2233:4455:6677]:32853.
    static let ipv6Response = hexBytes("""
        01 01 00 48   21 12 a4 42
        b7 e7 a7 01   bc 34 d6 86   fa 87 df ae
        80 22 00 0b   74 65 73 74   20 76 65 63   74 6f 72 20
        00 20 00 14   00 02 a1 47   01 13 a9 fa   a5 d3 f1 79   bc 25 f4 b5   be d2 b9 d9
        00 08 00 14   a3 82 95 4e   4b e6 7b f1   17 84 c9 7c   82 92 c2 75   bf e3 ed 41
        80 28 00 04   c8 fb 0b 4c
        """)
}

struct STUNMessageTests {
    @Test func readsTheSampleRequest() throws {
        let message = try STUNMessage(decoding: RFC5769.request)
        #expect(message.messageClass == .request)
        #expect(message.method == STUNMessage.bindingMethod)
        #expect(message.transactionID == RFC5769.transactionID)
        #expect(message.username == "evtj:h6vY")
        #expect(message.priority == 0x6E00_01FF)
        #expect(message.iceControlled == 0x932F_F9B1_5126_3B36)
        #expect(message.iceControlling == nil)
        #expect(message.useCandidate == false)
        #expect(message.attribute(STUNAttribute.Kind.software)?.value == Array("STUN test client".utf8))
        #expect(message.hasValidIntegrity(key: RFC5769.password))
        #expect(message.hasValidIntegrity(key: Array("wrong password".utf8)) == false)
        #expect(message.hasValidFingerprint == true)
        #expect(message.unknownRequiredAttributes.isEmpty)
    }

    @Test(arguments: [
        (RFC5769.ipv4Response, "192.0.2.1:32853"),
        (RFC5769.ipv6Response, "[2001:db8:1234:5678:11:2233:4455:6677]:32853"),
    ])
    func readsTheSampleResponses(bytes: [UInt8], mapped: String) throws {
        let message = try STUNMessage(decoding: bytes)
        #expect(message.messageClass == .success)
        #expect(message.mappedAddress?.description == mapped)
        #expect(message.hasValidIntegrity(key: RFC5769.password))
        #expect(message.hasValidFingerprint == true)
    }

    @Test func xorMappedAddressEncodesAsTheVectorDoes() throws {
        let ipv4 = try #require(TransportAddress(host: "192.0.2.1", port: 32853))
        #expect(STUNAttribute.xorMappedAddress(ipv4, transactionID: RFC5769.transactionID).value
            == hexBytes("00 01 a1 47 e1 12 a6 43"))
        let ipv6 = try #require(TransportAddress(host: "2001:db8:1234:5678:11:2233:4455:6677", port: 32853))
        #expect(STUNAttribute.xorMappedAddress(ipv6, transactionID: RFC5769.transactionID).value
            == hexBytes("00 02 a1 47 01 13 a9 fa a5 d3 f1 79 bc 25 f4 b5 be d2 b9 d9"))
    }

    @Test func whatWeWriteReadsBackWithIntegrityAndFingerprint() throws {
        let request = STUNMessage(class: .request, transactionID: RFC5769.transactionID, attributes: [
            .username("evtj:h6vY"), .priority(0x6E00_01FF), .iceControlling(42), .useCandidate,
        ])
        let bytes = request.encoded(integrityKey: RFC5769.password)
        #expect(bytes.count % 4 == 0)
        #expect(Array(bytes[0..<2]) == [0x00, 0x01])
        #expect(Int(bytes[2]) << 8 | Int(bytes[3]) == bytes.count - 20)
        let decoded = try STUNMessage(decoding: bytes)
        #expect(decoded.username == "evtj:h6vY")
        #expect(decoded.priority == 0x6E00_01FF)
        #expect(decoded.iceControlling == 42)
        #expect(decoded.useCandidate)
        #expect(decoded.hasValidIntegrity(key: RFC5769.password))
        #expect(decoded.hasValidFingerprint == true)
        // One flipped bit anywhere before the integrity breaks it.
        var tampered = bytes
        tampered[30] ^= 0x01
        let reread = try STUNMessage(decoding: tampered)
        #expect(reread.hasValidIntegrity(key: RFC5769.password) == false)
        #expect(reread.hasValidFingerprint == false)
    }

    @Test func errorResponsesCarryTheirCode() throws {
        let error = STUNMessage(class: .error, transactionID: RFC5769.transactionID,
                                attributes: [.errorCode(487, reason: "Role Conflict")])
        let decoded = try STUNMessage(decoding: error.encoded())
        #expect(decoded.messageClass == .error)
        #expect(Array(error.encoded()[0..<2]) == [0x01, 0x11])
        #expect(decoded.errorCode?.code == 487)
        #expect(decoded.errorCode?.reason == "Role Conflict")
    }

    @Test func everyTruncationIsAnErrorNotACrash() {
        for vector in [RFC5769.request, RFC5769.ipv4Response, RFC5769.ipv6Response] {
            for length in 0..<vector.count {
                #expect(throws: STUNError.self) { try STUNMessage(decoding: Array(vector.prefix(length))) }
            }
        }
    }

    @Test func malformedHeadersAreNamed() {
        var noCookie = RFC5769.request
        noCookie[4] = 0
        #expect(throws: STUNError("no STUN magic cookie")) { try STUNMessage(decoding: noCookie) }
        var topBits = RFC5769.request
        topBits[0] = 0xC0
        #expect(throws: STUNError.self) { try STUNMessage(decoding: topBits) }
        var overrun = RFC5769.request
        overrun[23] = 0xFF  // SOFTWARE claims 255 bytes
        #expect(throws: STUNError.self) { try STUNMessage(decoding: overrun) }
        #expect(STUNMessage.looksLikeSTUN(RFC5769.request))
        #expect(!STUNMessage.looksLikeSTUN([0x16, 0xFE, 0xFD] + [UInt8](repeating: 0, count: 30)))  // DTLS
    }
}

struct TransportAddressTests {
    @Test(arguments: [
        ("127.0.0.1", "127.0.0.1"), ("::1", "::1"), ("2001:db8:0:0:0:0:0:1", "2001:db8::1"),
        ("[fe80::1:2]", "fe80::1:2"), ("::ffff:192.0.2.1", "::ffff:c000:201"), ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
    ])
    func parsesAndPrints(text: String, printed: String) throws {
        let address = try #require(TransportAddress(host: text, port: 9))
        #expect(address.host == printed)
    }

    @Test(arguments: ["localhost", "1.2.3", "256.1.1.1", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", ""])
    func refusesWhatIsNotANumericAddress(text: String) {
        #expect(TransportAddress(host: text, port: 9) == nil)
    }
}
