#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An error from the transport layer: what happened to which peer, and what to do about it.
///
/// Match on ``code`` in code; show ``description`` to a person.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Equatable {
        /// The peer actively refused the TCP connection (nothing listens on that port).
        case connectionRefused
        /// The host name could not be resolved.
        case dnsFailure
        /// The TLS handshake or a TLS record failed (certificate, host name, protocol).
        case tlsFailure
        /// Something did not happen in time: connecting, a TLS handshake, an idle connection, DNS, a flush.
        case timeout
        /// The peer closed or reset the connection while we were still using it.
        case peerClosed
        /// More bytes were queued for sending than the outgoing buffer allows.
        case bufferLimitExceeded
        /// The connection (or its event loop) is already closed.
        case closed
        /// The host or port could not be reached (network or host unreachable).
        case unreachable
        /// A listening socket could not be set up (address in use, permission, bad address).
        case listenFailed
        /// Any other operating-system error.
        case io
    }

    /// The kind of failure.
    public let code: Code
    /// A human message: what happened, to which host, and what to do.
    public let description: String

    /// Creates an error with a code and a human message.
    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}

extension TransportError {
    static func refused(_ endpoint: String) -> TransportError {
        TransportError(.connectionRefused,
                       "connection refused by \(endpoint): is the server running and listening on that port?")
    }

    static func dns(host: String, reason: String) -> TransportError {
        TransportError(.dnsFailure, "cannot resolve host \"\(host)\": \(reason); check the host name and your network")
    }

    static func tls(_ endpoint: String, reason: String) -> TransportError {
        TransportError(.tlsFailure, "TLS with \(endpoint) failed: \(reason)")
    }

    static func timedOut(_ what: String, after duration: Duration) -> TransportError {
        TransportError(.timeout, "\(what) timed out after \(duration.formattedSeconds)")
    }

    static func peerClosed(_ endpoint: String, _ detail: String) -> TransportError {
        TransportError(.peerClosed, "\(endpoint) \(detail)")
    }

    static let loopShutDown = TransportError(.closed, "the event loop was shut down; the connection is closed")

    static func closed(_ endpoint: String) -> TransportError {
        TransportError(.closed, "the connection to \(endpoint) is already closed")
    }

    static func bufferFull(_ endpoint: String, queued: Int, adding: Int, limit: Int) -> TransportError {
        TransportError(.bufferLimitExceeded,
                       "outgoing buffer to \(endpoint) is full (\(queued) bytes queued, \(adding) more would exceed "
                           + "the \(limit)-byte limit): the peer reads too slowly; send less or drop data")
    }

    /// Converts an errno from a socket call into an error naming the peer.
    static func posix(_ errorNumber: Int32, _ operation: String, endpoint: String) -> TransportError {
        let reason = String(cString: strerror(errorNumber))
        switch errorNumber {
        case ECONNREFUSED:
            return .refused(endpoint)
        case ECONNRESET, EPIPE:
            return .peerClosed(endpoint, "reset the connection (\(reason))")
        case ETIMEDOUT:
            return TransportError(.timeout, "\(operation) \(endpoint) timed out in the kernel (\(reason))")
        case EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL, EAFNOSUPPORT:
            return TransportError(.unreachable, "\(operation) \(endpoint) failed: \(reason); check the address "
                                      + "and your network")
        default:
            return TransportError(.io, "\(operation) \(endpoint) failed: \(reason) (errno \(errorNumber))")
        }
    }
}

extension Duration {
    /// "2.5 s" style text for messages.
    var formattedSeconds: String {
        let milliseconds = components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        return "\(Double(milliseconds) / 1000) s"
    }
}
