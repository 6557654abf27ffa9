/// How far a media playlist has got: what blocking playlist reloads are decided against.
public struct PlaylistPosition: Sendable, Hashable {
    /// The last complete segment (listed with EXTINF), if any.
    public var lastCompleteMSN: Int?
    /// The segment whose parts are being written, if any.
    public var openMSN: Int?
    /// Its complete parts.
    public var openPartCount: Int
    /// Whether the playlist has EXT-X-ENDLIST.
    public var isEnded: Bool
    /// The part count of each complete segment in the window.
    public var partCounts: [Int: Int]
    /// RFC 8216bis §6.2.5.2's Advance Part Limit for this playlist's PART-TARGET.
    public var advancePartLimit: Int

    /// Creates a position.
    public init(lastCompleteMSN: Int?, openMSN: Int?, openPartCount: Int, isEnded: Bool, partCounts: [Int: Int] = [:],
                advancePartLimit: Int = 3) {
        self.lastCompleteMSN = lastCompleteMSN
        self.openMSN = openMSN
        self.openPartCount = openPartCount
        self.isEnded = isEnded
        self.partCounts = partCounts
        self.advancePartLimit = advancePartLimit
    }

    /// The last media sequence number the playlist lists, complete or not: the open segment once it has a part
    /// (before that only its preload hint is there, which is not a segment of the playlist).
    var lastMSN: Int? {
        if let open = openMSN, openPartCount > 0 { return open }
        return lastCompleteMSN
    }

    /// Whether the playlist holds part `index` of segment `msn`, or anything later (RFC 8216bis §6.2.5.2).
    func contains(msn: Int, part index: Int) -> Bool {
        if let complete = lastCompleteMSN, msn < complete { return true }
        if let complete = lastCompleteMSN, msn == complete {
            // A part index past a complete segment's last stands for part 0 of the next one.
            if index < (partCounts[msn] ?? 0) { return true }
            return openMSN.map { $0 > msn && openPartCount > 0 } ?? false
        }
        if let open = openMSN, msn == open { return index < openPartCount }
        if let open = openMSN, msn < open { return true }
        return false
    }
}
