/// The wall-clock time of a segment's first sample as RFC 8216bis §4.4.4.6 writes it: an ISO 8601 date-time with
/// milliseconds in UTC, e.g. `2026-11-30T12:00:00.250Z`.
public struct ProgramDateTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var millisecondsSinceEpoch: Int64

    /// Creates a time from milliseconds since the Unix epoch.
    public init(millisecondsSinceEpoch: Int64) {
        self.millisecondsSinceEpoch = millisecondsSinceEpoch
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.millisecondsSinceEpoch < rhs.millisecondsSinceEpoch }

    /// The time `milliseconds` later.
    public func adding(milliseconds: Int64) -> ProgramDateTime {
        ProgramDateTime(millisecondsSinceEpoch: millisecondsSinceEpoch + milliseconds)
    }

    /// The ISO 8601 text.
    public var description: String {
        let milliseconds = millisecondsSinceEpoch
        let days = floorDivide(milliseconds, 86_400_000)
        let ofDay = milliseconds - days * 86_400_000
        let (year, month, day) = Self.civil(fromDays: days)
        func padded(_ value: Int64, _ width: Int) -> String { DecimalText.padded(value, width: width) }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T"
            + "\(padded(ofDay / 3_600_000, 2)):\(padded(ofDay / 60_000 % 60, 2)):\(padded(ofDay / 1000 % 60, 2))."
            + "\(padded(ofDay % 1000, 3))Z"
    }

    private func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (the "civil from days" algorithm: eras of
    /// 400 years of 146097 days, years starting in March so that the leap day comes last).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
