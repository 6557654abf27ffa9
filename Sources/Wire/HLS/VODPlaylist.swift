import MP4

/// An HLS VOD media playlist over one fragmented MP4 file (RFC 8216bis §4.4): the init segment as `EXT-X-MAP` with
/// its byte range, then one segment per movie fragment as `EXT-X-BYTERANGE` of the same file, and `EXT-X-ENDLIST`.
/// No segment files are made: a player asks the file's URI for each range (HTTP Range requests).
///
/// ```
/// #EXTM3U
/// #EXT-X-VERSION:7                     byte ranges (4) and EXT-X-MAP in a media playlist (6)
/// #EXT-X-TARGETDURATION:2              the longest EXTINF, rounded (§4.4.3.1)
/// #EXT-X-PLAYLIST-TYPE:VOD
/// #EXT-X-MEDIA-SEQUENCE:0
/// #EXT-X-INDEPENDENT-SEGMENTS          when every fragment starts with a keyframe
/// #EXT-X-MAP:URI="r.mp4",BYTERANGE="1234@0"
/// #EXTINF:2.00000,
/// #EXT-X-BYTERANGE:567890@1234
/// r.mp4
/// #EXT-X-ENDLIST
/// ```
public enum VODPlaylist {
    /// The playlist of `index`'s file, served at `uri` (relative to the playlist, with any query it needs).
    public static func make(_ index: FragmentIndex, uri: String) -> String {
        let scale = Int64(max(1, index.timescale))
        let longest = index.fragments.map { Int64(clamping: $0.duration) }.max() ?? 0
        // §4.4.3.1: each EXTINF rounded to the nearest integer must be at most the target duration.
        let target = max(1, (longest + scale / 2) / scale)
        let independent = !index.fragments.isEmpty && index.fragments.allSatisfy(\.startsWithSyncSample)
        var lines = [
            "#EXTM3U",
            "#EXT-X-VERSION:7",
            "#EXT-X-TARGETDURATION:\(target)",
            "#EXT-X-PLAYLIST-TYPE:VOD",
            "#EXT-X-MEDIA-SEQUENCE:0",
        ]
        if independent { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        let quoted = uri.replacingQuotes()
        lines.append("#EXT-X-MAP:URI=\"\(quoted)\",BYTERANGE=\"\(index.initSegment.count)@"
                     + "\(index.initSegment.lowerBound)\"")
        for fragment in index.fragments {
            lines.append("#EXTINF:" + DecimalText.seconds(Int64(clamping: fragment.duration), scale: scale) + ",")
            lines.append("#EXT-X-BYTERANGE:\(fragment.range.count)@\(fragment.range.lowerBound)")
            lines.append(uri)
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }
}

private extension String {
    /// A quoted-string may not hold `"` (§4.2): a URI never needs one, so it is percent-encoded.
    func replacingQuotes() -> String {
        split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "%22")
    }
}
