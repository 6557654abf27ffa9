/// A packaged stream as its LL-HLS address names it: a directory under `/hls/` and a playlist in it.
///
/// A plain publish is `/hls/{app}/{tag}/index.m3u8`, where `tag` is the publish's media tag (32 hex digits: 128
/// bits of a keyed hash of its app and stream key; see `StreamKeyTag.media`), never the key. A live show's pictures share the show's directory:
/// `/hls/{stream}/main.m3u8` for the main picture and `/hls/{stream}/{tile}.m3u8` for each tile. Init segments,
/// parts and segments sit beside their playlist; their names carry the publish's epoch, unique in the origin, so
/// pictures of one show never collide. (Over HTTP a show's paths also carry a session's media token after the
/// stream's name, `/hls/{stream}/{token}/main.m3u8`; the origin never sees it: `stream serve` checks it first.)
public struct HLSStreamID: Sendable, Hashable, CustomStringConvertible {
    /// The directory under `/hls/`: "live/3f2a9c01…" (32 hex digits) for a plain publish, the stream's name for a
    /// show.
    public let directory: String
    /// The playlist's name without `.m3u8`: "index" for a plain publish, "main" or a tile's name for a show.
    public let playlist: String

    /// The playlist name of a plain publish.
    public static let plainPlaylist = "index"
    /// The playlist name of a show's main picture.
    public static let mainPicture = "main"

    /// The length of a plain publish's tag: 32 hex digits, 128 bits.
    public static let tagLength = 32

    /// A plain publish; nil unless `app` is 1–64 letters, digits, `-` or `_`, and `tag` is ``tagLength``
    /// lowercase hex digits.
    public init?(app: String, tag: String) {
        guard (1...64).contains(app.utf8.count),
              app.utf8.allSatisfy({ Self.isName($0) }),
              tag.utf8.count == Self.tagLength,
              tag.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        directory = app + "/" + tag
        playlist = Self.plainPlaylist
    }

    /// A live show's picture; nil unless `show` is a stream name (1–128 of `A-Z a-z 0-9 : _ . -`, not `.` or
    /// `..`) and `picture` is 1–32 lowercase letters, digits, `-` or `_` other than "index".
    public init?(show: String, picture: String) {
        guard (1...128).contains(show.utf8.count), show != ".", show != "..",
              show.utf8.allSatisfy({ Self.isName($0) || $0 == 0x3A || $0 == 0x2E }),
              (1...32).contains(picture.utf8.count), picture != Self.plainPlaylist,
              picture.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D
                                          || $0 == 0x5F }) else { return nil }
        directory = show
        playlist = picture
    }

    private static func isName(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == 0x2D || byte == 0x5F
    }

    /// The path of the stream's directory, with a trailing slash: "/hls/live/3f2a…/" (32 hex digits).
    public var path: String { "/hls/\(directory)/" }

    /// The path of its playlist: "/hls/live/3f2a…/index.m3u8", "/hls/show:mugs/main.m3u8".
    public var playlistPath: String { path + playlist + ".m3u8" }

    /// "live/3f2a…/index", "show:mugs/main".
    public var description: String { directory + "/" + playlist }
}
