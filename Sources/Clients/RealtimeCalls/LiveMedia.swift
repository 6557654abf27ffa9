import LiveProtocol

/// What a host publishes: the camera, the microphone, maybe a screen. The show object decides when (``LiveStream``
/// asks the server for grants on `goLive()`, and stops on `end()`); the platform decides how: Stream's engine on
/// Linux (`RealtimeBroadcast`), AVFoundation and the engine on iOS.
public protocol LiveMedia: Sendable {
    /// Whether the camera is on.
    var isCameraOn: Bool { get }
    /// Whether the microphone is on.
    var isMicrophoneOn: Bool { get }
    /// The pictures `goLive` asks grants for (the camera, or a shared screen).
    var tiles: [TileKind] { get }
    /// Starts the camera and microphone locally, without publishing.
    func preview() async throws(LiveStreamError)
    /// Turns the camera on or off (published or not).
    func setCamera(_ on: Bool) async throws(LiveStreamError)
    /// Turns the microphone on or off (published or not).
    func setMicrophone(_ on: Bool) async throws(LiveStreamError)
    /// Publishes each picture with its grant (URL and key from the server; the key is a secret).
    func publish(_ grants: [PublishGrant]) async throws(LiveStreamError)
    /// Stops publishing (and the preview).
    func stop() async
    /// Tells `handler`, from now on, where the published media's path is as it changes: `connecting` while a
    /// publish opens, `live`, `reconnecting` while a lost path is made again, `off` once it stopped. The show object
    /// registers once, before its first ``publish(_:)``; what reports nothing leaves ``LiveStream/media`` to the
    /// server connection.
    func observePath(_ handler: @escaping @Sendable (MediaState) -> Void)
}

extension LiveMedia {
    /// Media that does not report its path: the show's `media` follows the server connection alone.
    public func observePath(_ handler: @escaping @Sendable (MediaState) -> Void) {}
}
