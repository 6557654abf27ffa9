/// Writes metric families in the Prometheus text exposition format, version 0.0.4
/// (https://prometheus.io/docs/instrumenting/exposition_formats/): a `# HELP` and a `# TYPE` line per family, then
/// one line per sample; a histogram as `_bucket` lines (cumulative, `le` last, ending with `le="+Inf"`), `_sum` and
/// `_count`.
public enum PrometheusText {
    /// The `Content-Type` of a scrape's answer.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The exposition of `families`, in their order.
    public static func render(_ families: [MetricFamily]) -> String {
        var text = ""
        for family in families { write(family, to: &text) }
        return text
    }

    private static func write(_ family: MetricFamily, to text: inout String) {
        text += "# HELP \(family.name) \(escapeHelp(family.help))\n"
        text += "# TYPE \(family.name) \(family.kind.rawValue)\n"
        switch family.samples {
        case .values(let samples):
            for sample in samples { line(family.name, sample.labels, sample.value, to: &text) }
        case .histograms(let histograms):
            for sample in histograms {
                let labels = sample.labels
                let histogram = sample.histogram
                let cumulative = histogram.cumulativeCounts
                for (bound, count) in zip(histogram.bounds, cumulative) {
                    line(family.name + "_bucket", labels + [MetricLabel("le", number(bound))], Double(count),
                         to: &text)
                }
                line(family.name + "_bucket", labels + [MetricLabel("le", "+Inf")], Double(histogram.count),
                     to: &text)
                line(family.name + "_sum", labels, histogram.sum, to: &text)
                line(family.name + "_count", labels, Double(histogram.count), to: &text)
            }
        }
    }

    private static func line(_ name: String, _ labels: [MetricLabel], _ value: Double, to text: inout String) {
        text += name
        if !labels.isEmpty {
            text += "{"
            for (index, label) in labels.enumerated() {
                if index > 0 { text += "," }
                text += label.name + "=\"" + escapeLabelValue(label.value) + "\""
            }
            text += "}"
        }
        text += " " + number(value) + "\n"
    }

    /// A sample value or bound as the format takes it: a whole number without a fraction, `+Inf`, `-Inf`, `NaN`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        // Below 2^53 a whole double is exactly an Int, and reads better than "3.0".
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return value.description
    }

    /// HELP text: a backslash and a line feed are escaped (`\\`, `\n`).
    static func escapeHelp(_ text: String) -> String {
        escape(text, quote: false)
    }

    /// A label value: a backslash, a double quote and a line feed are escaped (`\\`, `\"`, `\n`).
    static func escapeLabelValue(_ text: String) -> String {
        escape(text, quote: true)
    }

    private static func escape(_ text: String, quote: Bool) -> String {
        guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x0A || (quote && $0 == 0x22) }) else { return text }
        var escaped = ""
        for character in text.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\"" where quote: escaped += "\\\""
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
