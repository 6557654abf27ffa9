/// One of a show's pictures. A show has at most one of each; its id in the protocol is its name.
public enum TileKind: String, Sendable, Hashable, CaseIterable, Comparable {
    /// The host's camera.
    case camera
    /// A screen the host shares.
    case screen
    /// The picture OBS (or any RTMP encoder) publishes with the show's ingest key.
    case obs

    /// Without a choice by the host the main picture is the shared screen, else OBS, else the camera.
    public static let mainPictureOrder: [TileKind] = [.screen, .obs, .camera]

    /// Order in lists: camera, screen, obs.
    public static func < (lhs: TileKind, rhs: TileKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The main picture among `tiles`: the host's `choice` if it is published, else the first published one of
    /// ``mainPictureOrder``; nil when nothing is.
    public static func main(of tiles: Set<TileKind>, choice: TileKind?) -> TileKind? {
        if let choice, tiles.contains(choice) { return choice }
        return mainPictureOrder.first { tiles.contains($0) }
    }
}
