@testable import LiveShows
import Testing

struct RateTests {
    @Test func tokenBucketAllowsABurstThenTheRate() {
        let rate = TokenBucket.Rate(capacity: 3, perSecond: 2)
        var bucket = TokenBucket(rate: rate, now: 0)
        for _ in 0..<3 { 
            let result1 = bucket.take(rate: rate, now: 0)
            #expect(result1 == nil)
        }
        let result2 = bucket.take(rate: rate, now: 0)
        #expect(result2 == 500)
        let result3 = bucket.take(rate: rate, now: 200)
        #expect(result3 == 300)
        let result4 = bucket.take(rate: rate, now: 500)
        #expect(result4 == nil)
        #expect(!bucket.isFull(rate: rate, now: 500))
        #expect(bucket.isFull(rate: rate, now: 2000))
    }

    @Test func coalescerSendsAtMostOncePerPeriod() {
        var coalescer = Coalescer(period: 1000)
        let result5 = coalescer.changed(now: 0)
        #expect(result5)
        let result6 = coalescer.changed(now: 100)
        #expect(!result6)
        #expect(coalescer.dueAt == 1000)
        let result7 = coalescer.changed(now: 900)
        #expect(!result7)
        let result8 = coalescer.tick(now: 999)
        #expect(!result8)
        let result9 = coalescer.tick(now: 1000)
        #expect(result9)
        #expect(coalescer.dueAt == nil)
        let result10 = coalescer.changed(now: 1500)
        #expect(!result10)
        let result11 = coalescer.tick(now: 2000)
        #expect(result11)
        let result12 = coalescer.changed(now: 3500)
        #expect(result12)
    }
}
