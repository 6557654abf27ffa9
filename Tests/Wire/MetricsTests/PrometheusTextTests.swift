import Testing
@testable import Metrics

/// The exposition's exact text, against the format's description
/// (https://prometheus.io/docs/instrumenting/exposition_formats/, "Text format details"); what Prometheus's own
/// parser makes of a real scrape is tested in the integration tests.
struct PrometheusTextTests {
    @Test func writesHelpTypeAndOneLinePerSample() {
        let text = PrometheusText.render([
            .counter("stream_chat_messages_total", help: "Chat messages accepted.", 3),
            .gauge("stream_connections", help: "Open connections by protocol.", [
                MetricSample(2, labels: [MetricLabel("protocol", "rtmp")]),
                MetricSample(0, labels: [MetricLabel("protocol", "websocket")]),
            ]),
        ])
        #expect(text == """
            # HELP stream_chat_messages_total Chat messages accepted.
            # TYPE stream_chat_messages_total counter
            stream_chat_messages_total 3
            # HELP stream_connections Open connections by protocol.
            # TYPE stream_connections gauge
            stream_connections{protocol="rtmp"} 2
            stream_connections{protocol="websocket"} 0

            """)
    }

    @Test func escapesLabelValuesAndHelp() {
        let text = PrometheusText.render([
            .gauge("stream_show_watchers", help: "A \\ and a\nline feed; \"quotes\" stay in HELP.", [
                MetricSample(1, labels: [MetricLabel("show", "a\\b\"c\nd"), MetricLabel("other", "plain")]),
            ]),
        ])
        #expect(text == #"""
            # HELP stream_show_watchers A \\ and a\nline feed; "quotes" stay in HELP.
            # TYPE stream_show_watchers gauge
            stream_show_watchers{show="a\\b\"c\nd",other="plain"} 1

            """#)
    }

    @Test func writesAHistogramCumulativelyWithInfSumAndCount() {
        var histogram = Histogram(bounds: [0.001, 0.01, 0.1])
        for value in [0.0005, 0.001, 0.002, 0.05, 0.5] { histogram.observe(value) }
        #expect(histogram.counts == [2, 1, 1, 1])
        #expect(histogram.cumulativeCounts == [2, 3, 4, 5])
        let text = PrometheusText.render([
            .histogram("stream_store_commit_seconds", help: "Store commit latency.", histogram),
            .histogram("stream_labelled_seconds", help: "With a label.", [
                HistogramSample(Histogram(bounds: [1]), labels: [MetricLabel("store", "sqlite")]),
            ]),
        ])
        #expect(text == """
            # HELP stream_store_commit_seconds Store commit latency.
            # TYPE stream_store_commit_seconds histogram
            stream_store_commit_seconds_bucket{le="0.001"} 2
            stream_store_commit_seconds_bucket{le="0.01"} 3
            stream_store_commit_seconds_bucket{le="0.1"} 4
            stream_store_commit_seconds_bucket{le="+Inf"} 5
            stream_store_commit_seconds_sum 0.5535
            stream_store_commit_seconds_count 5
            # HELP stream_labelled_seconds With a label.
            # TYPE stream_labelled_seconds histogram
            stream_labelled_seconds_bucket{store="sqlite",le="1"} 0
            stream_labelled_seconds_bucket{store="sqlite",le="+Inf"} 0
            stream_labelled_seconds_sum{store="sqlite"} 0
            stream_labelled_seconds_count{store="sqlite"} 0

            """)
    }

    @Test func writesSpecialAndFractionalNumbers() {
        #expect(PrometheusText.number(.infinity) == "+Inf")
        #expect(PrometheusText.number(-.infinity) == "-Inf")
        #expect(PrometheusText.number(.nan) == "NaN")
        #expect(PrometheusText.number(0) == "0")
        #expect(PrometheusText.number(-7) == "-7")
        #expect(PrometheusText.number(2.5) == "2.5")
        #expect(PrometheusText.number(1e20) == "1e+20")
        #expect(PrometheusText.number(0.00001) == "1e-05")
    }

    @Test func writesAFamilyWithoutSamplesAsItsHeaderAlone() {
        #expect(PrometheusText.render([.gauge("stream_show_watchers", help: "Per show.", [])]) == """
            # HELP stream_show_watchers Per show.
            # TYPE stream_show_watchers gauge

            """)
    }

    @Test func checksNames() {
        #expect(MetricFamily.isMetricName("stream_bytes_total"))
        #expect(MetricFamily.isMetricName("a:b"))
        #expect(!MetricFamily.isMetricName("1abc"))
        #expect(!MetricFamily.isMetricName("a-b"))
        #expect(!MetricFamily.isMetricName(""))
        #expect(MetricFamily.isLabelName("reason"))
        #expect(!MetricFamily.isLabelName("__name__"))
        #expect(!MetricFamily.isLabelName("a:b"))
    }
}
