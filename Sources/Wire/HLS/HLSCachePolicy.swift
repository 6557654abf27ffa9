/// The `Cache-Control` and `Content-Type` of each kind of HLS response.
public enum HLSCachePolicy {
    /// A live playlist without delivery directives changes with every part: caches must ask again each time.
    public static let livePlaylist = "no-cache"
    /// The answer to a blocking reload (`_HLS_msn`/`_HLS_part`) holds what was asked for whenever it is replayed,
    /// so a CDN may serve it to the next viewer asking the same (RFC 8216bis §6.2.5.2, "Blocking Playlist Reload":
    /// such responses are cacheable); six target durations is the time the parts stay listed and downloadable.
    public static func blockingPlaylist(targetDuration: Int) -> String {
        "public, max-age=\(max(targetDuration, 1) * 6)"
    }
    /// Init segments, parts and segments never change: their names carry the publish's epoch.
    public static let immutableMedia = "public, max-age=31536000, immutable"
    /// Errors (400, 404, 503) must not be cached: the resource may exist a moment later.
    public static let error = "no-cache"

    /// The playlist media type (RFC 8216bis §4).
    public static let playlistContentType = "application/vnd.apple.mpegurl"
    /// Init segments, parts and segments: fragmented MP4.
    public static let mediaContentType = "video/mp4"
}
