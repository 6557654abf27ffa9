/// One metric of an exposition: its name, help text, type and samples (the Prometheus data model).
///
/// Names and label names are ours, so a bad one is a precondition failure; label values may hold anything and are
/// escaped by ``PrometheusText``. A label value must never hold a secret or unbounded user input: each distinct
/// value is a series a Prometheus server keeps.
public struct MetricFamily: Sendable, Equatable {
    /// What a metric measures, as Prometheus types it.
    public enum Kind: String, Sendable, Equatable {
        /// Only goes up (it restarts at zero with the process); its name ends in `_total`.
        case counter
        /// A value that goes up and down.
        case gauge
        /// Observations counted in buckets, with their sum and count.
        case histogram
    }

    /// The samples of a family: plain values for counters and gauges, histograms for a histogram.
    public enum Samples: Sendable, Equatable {
        /// Counter or gauge values, one per label set.
        case values([MetricSample])
        /// Histograms, one per label set.
        case histograms([HistogramSample])
    }

    /// The metric's name, e.g. `stream_chat_messages_total`.
    public let name: String
    /// One line saying what it counts.
    public let help: String
    /// Its type.
    public let kind: Kind
    /// Its samples.
    public let samples: Samples

    private init(name: String, help: String, kind: Kind, samples: Samples) {
        precondition(MetricFamily.isMetricName(name), "not a metric name: \(name)")
        self.name = name
        self.help = help
        self.kind = kind
        self.samples = samples
    }

    /// A counter: its name ends in `_total`, and its values never go down while the process runs.
    public static func counter(_ name: String, help: String, _ samples: [MetricSample]) -> MetricFamily {
        precondition(name.hasSuffix("_total"), "a counter's name ends in _total: \(name)")
        return MetricFamily(name: name, help: help, kind: .counter, samples: .values(samples))
    }

    /// A counter with one unlabelled value.
    public static func counter(_ name: String, help: String, _ value: Double) -> MetricFamily {
        counter(name, help: help, [MetricSample(value)])
    }

    /// A gauge.
    public static func gauge(_ name: String, help: String, _ samples: [MetricSample]) -> MetricFamily {
        MetricFamily(name: name, help: help, kind: .gauge, samples: .values(samples))
    }

    /// A gauge with one unlabelled value.
    public static func gauge(_ name: String, help: String, _ value: Double) -> MetricFamily {
        gauge(name, help: help, [MetricSample(value)])
    }

    /// A histogram family.
    public static func histogram(_ name: String, help: String, _ histograms: [HistogramSample]) -> MetricFamily {
        for sample in histograms {
            precondition(!sample.labels.contains { $0.name == "le" }, "le is the histogram's own label")
        }
        return MetricFamily(name: name, help: help, kind: .histogram, samples: .histograms(histograms))
    }

    /// A histogram family with one unlabelled histogram.
    public static func histogram(_ name: String, help: String, _ histogram: Histogram) -> MetricFamily {
        self.histogram(name, help: help, [HistogramSample(histogram)])
    }

    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`, the format's metric names.
    static func isMetricName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !isDigit(first) else { return false }
        return name.utf8.allSatisfy { isDigit($0) || isNameLetter($0) || $0 == 0x3A }
    }

    /// `[a-zA-Z_][a-zA-Z0-9_]*`, the format's label names; names starting `__` are Prometheus's own.
    static func isLabelName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !isDigit(first), !name.hasPrefix("__") else { return false }
        return name.utf8.allSatisfy { isDigit($0) || isNameLetter($0) }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    private static func isNameLetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
    }
}

/// A label of a sample: `protocol="rtmp"`.
public struct MetricLabel: Sendable, Equatable {
    /// The label's name (ours: checked).
    public let name: String
    /// Its value (escaped when written).
    public let value: String

    /// Creates a label.
    public init(_ name: String, _ value: String) {
        precondition(MetricFamily.isLabelName(name), "not a label name: \(name)")
        self.name = name
        self.value = value
    }
}

/// One value of a counter or gauge, with its labels.
public struct MetricSample: Sendable, Equatable {
    /// The labels, in the order written.
    public let labels: [MetricLabel]
    /// The value.
    public let value: Double

    /// Creates a sample.
    public init(_ value: Double, labels: [MetricLabel] = []) {
        self.labels = labels
        self.value = value
    }

    /// Creates a sample of a count.
    public init(_ value: Int, labels: [MetricLabel] = []) {
        self.init(Double(value), labels: labels)
    }
}

/// One histogram of a histogram family, with its labels.
public struct HistogramSample: Sendable, Equatable {
    /// The labels, in the order written (`le` is added per bucket).
    public let labels: [MetricLabel]
    /// The observations.
    public let histogram: Histogram

    /// Creates a sample.
    public init(_ histogram: Histogram, labels: [MetricLabel] = []) {
        self.labels = labels
        self.histogram = histogram
    }
}
