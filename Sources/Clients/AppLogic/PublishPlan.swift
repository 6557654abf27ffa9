import StreamCore

/// How the broadcast extension publishes, decided from the settings' protocol and the saved destination.
///
/// The settings' protocol says what the user chose; the saved URL must agree (an `rtmp(s)://` ingest for RTMP, an
/// `https://` or `http://` WHIP endpoint for WebRTC, its bearer token saved in the key's place). WebRTC needs
/// OpenSSL (DTLS and SRTP's ciphers) and libopus, which this repository builds for Linux only: an app built without them
/// says so instead of publishing something else.
public enum PublishPlan: Sendable, Equatable {
    /// Publish over RTMP(S) to this ingest and key.
    case rtmp(StreamCredentials)
    /// Publish over WebRTC to this WHIP endpoint with this bearer token (in `streamKey`).
    case whip(StreamCredentials)
    /// Do not start: the failure says why and what to do.
    case refused(BroadcastFailure)

    /// Decides.
    /// - Parameters:
    ///   - settings: the shared settings (their `publishProtocol`).
    ///   - credentials: what the Keychain holds, nil when nothing is saved.
    ///   - webRTCAvailable: whether this build links the WebRTC stack (false on iOS today).
    public static func decide(settings: StreamSettings, credentials: StreamCredentials?,
                              webRTCAvailable: Bool) -> PublishPlan {
        guard let credentials else { return .refused(.missingCredentials) }
        switch (settings.publishProtocol, credentials.url.scheme.isWHIP) {
        case (.rtmp, false):
            return .rtmp(credentials)
        case (.whip, true):
            return webRTCAvailable ? .whip(credentials) : .refused(.webRTCUnavailable)
        case (.rtmp, true), (.whip, false):
            return .refused(.protocolMismatch(settings.publishProtocol))
        }
    }
}
