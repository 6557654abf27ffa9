import Testing
@testable import RTP

struct RTPPacketCacheTests {
    @Test func answersWithinItsWindowAndBound() {
        var cache = RTPPacketCache(window: .seconds(1), maximumPackets: 3)
        for sequence: UInt16 in 1...3 { cache.insert([UInt8(sequence)], sequence: sequence, now: .zero) }
        #expect(cache.packet(2, now: .milliseconds(500)) == [2])
        cache.insert([4], sequence: 4, now: .milliseconds(600))
        #expect(cache.count == 3)
        #expect(cache.packet(1, now: .milliseconds(600)) == nil)  // the bound dropped the oldest
        #expect(cache.packet(3, now: .milliseconds(1000)) == [3])
        #expect(cache.packet(3, now: .milliseconds(1001)) == nil)  // past the window
        #expect(cache.packet(4, now: .milliseconds(1001)) == [4])
        cache.insert([5], sequence: 5, now: .milliseconds(1001))
        #expect(cache.count == 2)  // 2 and 3 expired
    }

    @Test func staysBoundedOverManyPackets() {
        var cache = RTPPacketCache(window: .seconds(1), maximumPackets: 100)
        for index in 0..<100_000 {
            cache.insert([0], sequence: UInt16(truncatingIfNeeded: index), now: .milliseconds(index))
        }
        #expect(cache.count == 100)
        #expect(cache.packet(UInt16(truncatingIfNeeded: 99_999), now: .milliseconds(99_999)) == [0])
        #expect(cache.packet(UInt16(truncatingIfNeeded: 99_899), now: .milliseconds(99_999)) == nil)
    }
}
