/// An LL-HLS media playlist as a server of ordinary HLS would write it (Owncast, nginx-rtmp): the same complete
/// segments, without the tags that make it low-latency.
public enum PlainPlaylist {
    /// The tags dropped: parts, the preload hint, blocking reload and the part target.
    static let lowLatencyTags = ["#EXT-X-PART:", "#EXT-X-PRELOAD-HINT:", "#EXT-X-SERVER-CONTROL:", "#EXT-X-PART-INF:"]

    /// `text` without its LL-HLS tags and without the open segment (its EXT-X-PROGRAM-DATE-TIME, EXT-X-MAP or
    /// EXT-X-DISCONTINUITY would otherwise precede no segment): a player reads only complete segments.
    public static func strip(_ text: String) -> String {
        var lines = text.split(separator: "\n").filter { line in !lowLatencyTags.contains { line.hasPrefix($0) } }
        let ended = lines.last == "#EXT-X-ENDLIST"
        if ended { lines.removeLast() }
        // The last segment's URI is the last line that is not a tag.
        if let lastURI = lines.lastIndex(where: { !$0.hasPrefix("#") }) {
            lines.removeSubrange((lastURI + 1)...)
        }
        if ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }
}
