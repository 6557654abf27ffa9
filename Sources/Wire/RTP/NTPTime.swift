/// NTP timestamps (RFC 5905 §6) as RTCP sender reports carry them: seconds since 1900 in the top 32 bits, the
/// fraction in the bottom 32.
public enum NTPTime {
    /// Seconds from 1900-01-01 to 1970-01-01.
    public static let unixEpochOffset: UInt64 = 2_208_988_800

    /// The NTP timestamp of a Unix time.
    /// - Parameter unixNanoseconds: nanoseconds since 1970.
    public static func timestamp(unixNanoseconds: UInt64) -> UInt64 {
        let seconds = unixNanoseconds / 1_000_000_000 + unixEpochOffset
        let fraction = (unixNanoseconds % 1_000_000_000) << 32 / 1_000_000_000
        return seconds << 32 | fraction
    }

    /// The middle 32 bits, as report blocks echo them (LSR).
    public static func middle(_ timestamp: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: timestamp >> 16)
    }

    /// RFC 3550 §6.4.1: round-trip time from a report block, in seconds, or nil without a sender report echoed.
    /// - Parameters:
    ///   - block: the receiver's report block.
    ///   - arrival: the middle 32 bits of the NTP time the report arrived at.
    public static func roundTrip(_ block: RTCPReportBlock, arrival: UInt32) -> Double? {
        guard block.lastSenderReport != 0 else { return nil }
        let units = arrival &- block.lastSenderReport &- block.delaySinceLastSenderReport
        // A "negative" round trip (clock steps) shows as a huge value; refuse anything above a minute.
        guard units < 60 << 16 else { return nil }
        return Double(units) / 65536
    }
}
