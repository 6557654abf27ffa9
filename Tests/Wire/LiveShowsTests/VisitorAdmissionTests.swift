import LiveShows
import Testing

/// Issue 34 item 5: new visitor ids per address, three at once then one a minute, in bounded memory.
struct VisitorAdmissionTests {
    @Test func threeAtOnceThenOneAMinutePerAddress() {
        var admission = VisitorAdmission()
        let first = (0..<4).map { _ in admission.mayMint(from: "203.0.113.9", now: 0) }
        #expect(first == [true, true, true, false])
        let other = admission.mayMint(from: "203.0.113.10", now: 0)
        let early = admission.mayMint(from: "203.0.113.9", now: 59_000)
        let later = admission.mayMint(from: "203.0.113.9", now: 61_000)
        #expect(other, "another address has its own")
        #expect(!early && later, "one a minute")
    }

    @Test func addressesAreBounded() {
        var admission = VisitorAdmission()
        for index in 0..<(VisitorAdmission.maximumAddresses + 10) {
            _ = admission.mayMint(from: "a\(index)", now: 0)
        }
        #expect(admission.addressCount <= VisitorAdmission.maximumAddresses)
        let fresh = admission.mayMint(from: "b", now: 0)
        #expect(fresh)
    }
}
