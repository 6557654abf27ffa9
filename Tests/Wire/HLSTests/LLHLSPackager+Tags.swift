import FLV
import HLS

extension LLHLSPackager {
    /// Appends tags, each at its own time on a wall clock starting at `wallClock`; returns every event.
    @discardableResult
    mutating func append(_ tags: [FLVTag], wallClock: Int64 = 1_800_000_000_000, base: UInt32 = 0) -> [HLSEvent] {
        tags.flatMap { append($0, wallClock: wallClock + Int64($0.timestamp &- base)) }
    }
}
