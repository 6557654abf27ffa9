import Testing
import AppLogic

@Suite struct MediaClockTests {
    @Test func theFirstBufferIsZeroAndLaterOnesCountMilliseconds() {
        var clock = MediaClock()
        let result1 = clock.milliseconds(atSeconds: 81_234.5)
        #expect(result1 == 0)
        #expect(clock.origin == 81_234.5)
        let result2 = clock.milliseconds(atSeconds: 81_234.5 + 1.0 / 30)
        #expect(result2 == 33)
        let result3 = clock.milliseconds(atSeconds: 81_236.5)
        #expect(result3 == 2000)
    }

    @Test func buffersBeforeTheOriginAreZero() {
        var clock = MediaClock()
        let result4 = clock.milliseconds(atSeconds: 10)
        #expect(result4 == 0)
        let result5 = clock.milliseconds(atSeconds: 9.5)
        #expect(result5 == 0)
    }

    @Test func timestampsWrapAt32BitsWithoutTrapping() {
        var clock = MediaClock()
        let result6 = clock.milliseconds(atSeconds: 0)
        #expect(result6 == 0)
        let wrap = Double(UInt32.max) / 1000 + 0.001   // 2^32 ms
        let result7 = clock.milliseconds(atSeconds: wrap)
        #expect(result7 == 0)
        let result8 = clock.milliseconds(atSeconds: wrap + 0.5)
        #expect(result8 == 500)
    }

    @Test func nonFiniteOrAbsurdTimesGiveNil() {
        var clock = MediaClock()
        let result9 = clock.milliseconds(atSeconds: .nan)
        #expect(result9 == nil)
        #expect(clock.origin == nil)
        let result10 = clock.milliseconds(atSeconds: 0)
        #expect(result10 == 0)
        let result11 = clock.milliseconds(atSeconds: .infinity)
        #expect(result11 == nil)
        let result12 = clock.milliseconds(atSeconds: 1e300)
        #expect(result12 == nil)
    }
}
