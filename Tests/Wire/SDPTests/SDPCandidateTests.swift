import Testing
@testable import SDP

struct SDPCandidateTests {
    @Test func parsesAServerReflexiveCandidateWithItsBase() throws {
        // RFC 8839 §5.1's grammar with the extension attributes browsers add.
        let candidate = try SDPCandidate(parsing:
            "842163049 1 udp 1677729535 198.51.100.7 61665 typ srflx raddr 10.0.0.2 rport 61665 generation 0 "
            + "network-cost 999")
        #expect(candidate.foundation == "842163049")
        #expect(candidate.component == 1)
        #expect(candidate.transport == "udp")
        #expect(candidate.priority == 1_677_729_535)
        #expect(candidate.address == "198.51.100.7")
        #expect(candidate.port == 61665)
        #expect(candidate.kind == .serverReflexive)
        #expect(candidate.related?.address == "10.0.0.2")
        #expect(candidate.related?.port == 61665)
        #expect(candidate.attributeValue
            == "842163049 1 udp 1677729535 198.51.100.7 61665 typ srflx raddr 10.0.0.2 rport 61665")
    }

    @Test(arguments: ["1 1 udp", "1 x udp 1 127.0.0.1 9 typ host", "1 1 udp 99999999999 127.0.0.1 9 typ host",
                      "1 1 udp 1 127.0.0.1 70000 typ host", "1 1 udp 1 127.0.0.1 9 type host"])
    func malformedCandidatesAreRefused(value: String) {
        #expect(throws: SDPError.self) { try SDPCandidate(parsing: value) }
    }
}

struct DTLSFingerprintTests {
    @Test func roundTrips() throws {
        let value = "sha-256 2C:9B:1E:5F:77:18:8A:C4:49:2B:D0:AB:11:03:94:6E:B4:6A:B5:6D:2D:45:88:94:47:D4:F1:9B:5A:0C:"
            + "EF:51"
        let fingerprint = try DTLSFingerprint(parsing: value)
        #expect(fingerprint.digest.count == 32)
        #expect(fingerprint.description == value)
        // Lower-case hex and an upper-case algorithm name are the same fingerprint.
        #expect(try DTLSFingerprint(parsing: "SHA-256 " + value.dropFirst(8).lowercased()) == fingerprint)
    }

    @Test(arguments: ["sha-256", "sha-256 2C:9B", "sha-256 2C:9B:XX", "sha-1 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:"
                      + "DD:EE:FF:00:11:22:3"])
    func malformedFingerprintsAreRefused(value: String) {
        #expect(throws: SDPError.self) { try DTLSFingerprint(parsing: value) }
    }
}
