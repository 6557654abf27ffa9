import RTMP
import StreamCore

/// Why publishing to an ingest failed, in words that tell a user what to do.
///
/// The stream key never appears in the description: every message is redacted before it is stored.
public struct PublishError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Hashable {
        /// Nothing listens at the ingest's host and port.
        case connectionRefused
        /// The ingest's host name does not resolve.
        case dnsFailure
        /// TLS failed: certificate, host name or protocol.
        case tlsFailure
        /// The ingest did not answer in time (connect, handshake, a command, or a stalled send).
        case timeout
        /// There is no network path, or the ingest's network or host cannot be reached.
        case networkUnavailable
        /// The ingest refused the connect command (wrong application, for example).
        case connectRejected
        /// The ingest refused the publish (wrong or unauthorised stream key, stream already live).
        case publishRejected
        /// The connection dropped after it was up.
        case connectionLost
        /// The ingest broke the RTMP protocol.
        case protocolError
        /// One message was too large for RTMP (a frame over 16 MiB): that message is not sent, the connection
        /// goes on.
        case messageTooLarge
        /// The client was used in the wrong order or after close.
        case invalidState
    }

    /// The kind of failure.
    public let code: Code
    /// The server's status code (e.g. "NetStream.Publish.BadName"), when the server gave one.
    public let serverStatusCode: String?
    /// What happened and what to do.
    public let description: String

    /// Creates an error; `secrets` are redacted from the description.
    public init(_ code: Code, _ description: String, serverStatusCode: String? = nil, secrets: [String] = []) {
        self.code = code
        self.serverStatusCode = serverStatusCode
        self.description = Redaction.redact(description, secrets: secrets)
    }

    /// Whether retrying later may help (network trouble) rather than needing the user to change something.
    public var isTransient: Bool {
        switch code {
        case .connectionRefused, .dnsFailure, .timeout, .networkUnavailable, .connectionLost: true
        case .tlsFailure, .connectRejected, .publishRejected, .protocolError, .messageTooLarge, .invalidState: false
        }
    }

    /// The error for a stream that could not open or went down.
    /// - Parameters:
    ///   - error: the stream's error.
    ///   - secrets: text to redact.
    public init(_ error: LinkError, secrets: [String]) {
        let code: Code = switch error.kind {
        case .refused: .connectionRefused
        case .dns: .dnsFailure
        case .tls: .tlsFailure
        case .timedOut: .timeout
        case .noPath, .unreachable: .networkUnavailable
        case .closed, .bufferFull: .connectionLost
        }
        self.init(code, error.description, secrets: secrets)
    }

    /// The error for what the RTMP session reported about the peer (a message too large *from the ingest* is a
    /// protocol error; one we cannot send is made by ``RTMPClient/send(_:)`` as `.messageTooLarge`).
    /// - Parameters:
    ///   - error: the session's error.
    ///   - secrets: text to redact.
    public init(_ error: RTMPError, secrets: [String]) {
        let code: Code = switch error.code {
        case .connectRejected: .connectRejected
        case .publishRejected: .publishRejected
        default: .protocolError
        }
        self.init(code, error.description, serverStatusCode: error.statusCode, secrets: secrets)
    }
}
