import RTMP
import StreamCore
import Transport

/// Why publishing to an ingest failed, in words that tell a user what to do.
///
/// The stream key never appears in the description: every message is redacted before it is stored.
public struct PublishError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Equatable {
        /// Nothing listens at the ingest's host and port.
        case connectionRefused
        /// The ingest's host name does not resolve.
        case dnsFailure
        /// TLS failed: certificate, host name or protocol.
        case tlsFailure
        /// The ingest did not answer in time (connect, handshake, a command, or a stalled send).
        case timeout
        /// The ingest refused the connect command (wrong application, for example).
        case connectRejected
        /// The ingest refused the publish (wrong or unauthorised stream key, stream already live).
        case publishRejected
        /// The connection dropped after it was up.
        case connectionLost
        /// The ingest broke the RTMP protocol.
        case protocolError
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
        case .connectionRefused, .dnsFailure, .timeout, .connectionLost: true
        case .tlsFailure, .connectRejected, .publishRejected, .protocolError, .invalidState: false
        }
    }

    init(_ error: TransportError, secrets: [String]) {
        let code: Code = switch error.code {
        case .connectionRefused: .connectionRefused
        case .dnsFailure: .dnsFailure
        case .tlsFailure: .tlsFailure
        case .timeout: .timeout
        case .peerClosed, .closed, .unreachable, .io, .bufferLimitExceeded, .listenFailed: .connectionLost
        }
        self.init(code, error.description, secrets: secrets)
    }

    init(_ error: RTMPError, secrets: [String]) {
        let code: Code = switch error.code {
        case .connectRejected: .connectRejected
        case .publishRejected: .publishRejected
        default: .protocolError
        }
        self.init(code, error.description, serverStatusCode: error.statusCode, secrets: secrets)
    }
}
