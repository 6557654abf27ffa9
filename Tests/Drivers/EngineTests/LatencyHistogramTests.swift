import Testing
@testable import Engine

@Suite struct LatencyHistogramTests {
    @Test func emptyHasNoPercentiles() {
        #expect(LatencyHistogram().percentile(0.5) == nil)
    }

    @Test func percentilesOfAKnownSpread() {
        var histogram = LatencyHistogram()
        for milliseconds in 1...100 { histogram.record(milliseconds: milliseconds) }
        #expect(histogram.count == 100)
        #expect(histogram.percentile(0.50) == 50)
        #expect(histogram.percentile(0.99) == 99)
        #expect(histogram.percentile(1.0) == 100)
        #expect(histogram.percentile(0.0) == 1)
    }

    @Test func outOfRangeValuesAreClampedNotLost() {
        var histogram = LatencyHistogram()
        histogram.record(milliseconds: -5)
        histogram.record(milliseconds: 1_000_000)
        #expect(histogram.count == 2)
        #expect(histogram.percentile(0.5) == 0)
        #expect(histogram.percentile(1.0) == LatencyHistogram.bucketCount - 1)
    }
}
