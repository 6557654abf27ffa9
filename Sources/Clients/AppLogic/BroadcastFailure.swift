import Engine
import Publisher
import StreamCore

/// Why a broadcast ends early, and the text the extension passes to `finishBroadcastWithError` (iOS shows it to
/// the user in an alert). The text says what happened and what to do, and never contains the stream key. Thrown
/// by ``EncodeSession`` when an encoder fails.
public enum BroadcastFailure: Error, Sendable, Hashable {
    /// No URL and stream key are saved in the Keychain.
    case missingCredentials
    /// The Keychain item exists but cannot be read; the detail is `StreamCoreError`'s message (never the key).
    case unreadableCredentials(detail: String)
    /// There is no network path at all (airplane mode, no Wi-Fi or cellular).
    case networkUnavailable
    /// The ingest's host name does not resolve.
    case hostNotFound
    /// Nothing accepts connections at the ingest's host and port.
    case connectionRefused
    /// TLS failed (certificate, host name, protocol) on an `rtmps://` URL.
    case tlsFailure
    /// The ingest did not answer in time.
    case timeout
    /// The connection dropped while live.
    case connectionLost
    /// The ingest refused `connect` (wrong application path), with the server's status code if it sent one.
    case connectRejected(statusCode: String?)
    /// The ingest refused `publish` (wrong stream key, or the stream is already live), with its status code.
    case publishRejected(statusCode: String?)
    /// The ingest broke the RTMP protocol.
    case protocolError
    /// The video or audio encoder failed.
    case encoderFailed(detail: String)
    /// The broadcast stopped for another reason (the detail is the engine's message, never the key).
    case stopped(detail: String)
    /// The settings' protocol and the saved URL disagree (WebRTC chosen with an RTMP URL, or the other way).
    case protocolMismatch(StreamSettings.PublishProtocol)
    /// WebRTC (WHIP) was chosen but this build has no WebRTC stack.
    case webRTCUnavailable

    /// The `NSError` domain of the finish error.
    public static let errorDomain = "com.joeblau.Stream.Broadcast"

    /// The failure a broadcast ended with, as the engine reports it (the same reconnects and errors as
    /// `stream broadcast`): the publish error underneath says what went wrong on the network or at the ingest.
    ///
    /// A connection that was live and gave up reconnecting is `.connectionLost` whatever its last attempt met
    /// (a refused or unreachable reconnect is the same loss to the user), unless the ingest refused the stream.
    /// - Parameter error: the broadcast's (or its output's) final error.
    public init(_ error: BroadcastError) {
        if error.code == .encoderFailed {
            self = .encoderFailed(detail: error.message)
            return
        }
        guard let publish = error.publishError else {
            self = .stopped(detail: error.message)
            return
        }
        let wasLive = error.code == .connectionLost
        switch publish.code {
        case .connectRejected: self = .connectRejected(statusCode: publish.serverStatusCode)
        case .publishRejected: self = .publishRejected(statusCode: publish.serverStatusCode)
        case _ where wasLive: self = .connectionLost
        case .connectionRefused: self = .connectionRefused
        case .dnsFailure: self = .hostNotFound
        case .tlsFailure: self = .tlsFailure
        case .timeout: self = .timeout
        case .networkUnavailable: self = .networkUnavailable
        case .connectionLost: self = .connectionLost
        case .protocolError, .messageTooLarge, .invalidState: self = .protocolError
        }
    }

    /// The `NSError` code: stable per case, for logs and analytics.
    public var code: Int {
        switch self {
        case .missingCredentials: 1
        case .unreadableCredentials: 2
        case .networkUnavailable: 3
        case .hostNotFound: 4
        case .connectionRefused: 5
        case .tlsFailure: 6
        case .timeout: 7
        case .connectionLost: 8
        case .connectRejected: 9
        case .publishRejected: 10
        case .protocolError: 11
        case .encoderFailed: 12
        case .stopped: 13
        case .protocolMismatch: 14
        case .webRTCUnavailable: 15
        }
    }

    /// The user-facing text.
    /// - Parameters:
    ///   - url: the ingest, shown as its `tcUrl` (it never holds the key); nil when unknown.
    ///   - streamKey: the key, removed from anything that might echo it.
    /// - Returns: one or two sentences without the key.
    public func message(url: IngestURL?, streamKey: String?) -> String {
        let server = url.map { "\($0.hostForURL):\($0.port)" } ?? "the ingest server"
        let text: String
        switch self {
        case .missingCredentials:
            text = "No stream URL and key are saved. Open Stream, enter them under Connection, then start again."
        case .unreadableCredentials(let detail):
            text = "The saved stream URL and key could not be read (\(detail)). Enter them again in Stream."
        case .networkUnavailable:
            text = "No network connection. Connect to Wi-Fi or cellular data and start again."
        case .hostNotFound:
            text = "\(server) could not be found. Check the URL in Stream's settings."
        case .connectionRefused:
            text = "\(server) refused the connection. Check the URL and port (rtmp uses 1935, rtmps 443)."
        case .tlsFailure:
            text = "The secure connection to \(server) failed. Check that the URL's host matches the service "
                + "(rtmps://), or try rtmp://."
        case .timeout:
            text = "\(server) did not answer in time. Check your connection and the URL."
        case .connectionLost:
            text = "The connection to \(server) was lost. Start the broadcast again when the network is back."
        case .connectRejected(let status):
            text = "\(server) refused the connection\(Self.suffix(status)). Check the application path in the URL "
                + "(e.g. rtmps://live.restream.io/live)."
        case .publishRejected(let status):
            text = "\(server) refused the stream\(Self.suffix(status)). Check the stream key, and that no other "
                + "broadcast is using it."
        case .protocolError:
            text = "\(server) sent something Stream could not understand. Check that the URL is an RTMP ingest."
        case .encoderFailed(let detail):
            text = "Encoding failed (\(detail)). Try a lower quality in Stream's settings."
        case .stopped(let detail):
            text = "The broadcast stopped (\(detail)). Start it again."
        case .protocolMismatch(.whip):
            text = "WebRTC (WHIP) is chosen, but the saved URL is an RTMP ingest. Enter the WHIP endpoint's https:// "
                + "URL and its token in Stream, or choose RTMP."
        case .protocolMismatch(.rtmp):
            text = "RTMP is chosen, but the saved URL is a WHIP endpoint. Enter an rtmp:// or rtmps:// URL in Stream, "
                + "or choose WebRTC (WHIP)."
        case .webRTCUnavailable:
            text = "This build of Stream cannot publish over WebRTC (WHIP) yet. Choose RTMP in Stream's settings."
        }
        return Redaction.redact(text, secrets: [streamKey ?? ""])
    }

    private static func suffix(_ status: String?) -> String {
        guard let status, !status.isEmpty else { return "" }
        return " (\(status))"
    }
}
