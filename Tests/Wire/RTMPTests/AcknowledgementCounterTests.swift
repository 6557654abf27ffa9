import Testing
@testable import RTMP

struct AcknowledgementCounterTests {
    @Test func noAcknowledgementWithoutAWindow() {
        var counter = AcknowledgementCounter()
        #expect(counter.received(10_000_000) == nil)
        #expect(counter.totalReceived == 10_000_000)
    }

    @Test func acknowledgesOncePerWindow() {
        var counter = AcknowledgementCounter(windowSize: 1000)
        #expect(counter.received(600) == nil)
        #expect(counter.received(600) == 1200)      // 1200 since the last ack ≥ 1000
        #expect(counter.received(999) == nil)
        #expect(counter.received(1) == 2200)
    }

    @Test func sequenceNumberWrapsWithoutTrapping() {
        var counter = AcknowledgementCounter(windowSize: 0x8000_0000)
        #expect(counter.received(0x7FFF_FFFF) == nil)
        #expect(counter.received(0x7FFF_FFFF) == 0xFFFF_FFFE)
        #expect(counter.received(0x7FFF_FFFF) == nil)
        #expect(counter.received(0x7FFF_FFFF) == 0xFFFF_FFFC)  // 4 × (2^31 - 1) mod 2^32
    }
}
