/// Why a pasted ingest URL was refused. The message names the problem and never repeats a stream key.
public struct IngestURLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the URL.
    public enum Reason: Sendable, Equatable {
        /// Nothing but whitespace was given.
        case empty
        /// There is no `scheme://` prefix.
        case missingScheme
        /// The scheme is not `rtmp` or `rtmps` (carries the scheme as written, lowercased).
        case unsupportedScheme(String)
        /// Nothing between `://` and the path.
        case missingHost
        /// The host contains characters a host name cannot have.
        case invalidHost
        /// The port is not a number from 1 to 65535 (carries the port text).
        case invalidPort(String)
        /// There is no application path (e.g. `rtmp://host` or `rtmp://host/`).
        case emptyApp
        /// The application path has an empty segment (`live//x`).
        case emptyPathSegment
        /// `user:password@` before the host, which RTMP does not use.
        case userInfoNotAllowed
        /// A `#fragment`, which has no meaning for RTMP.
        case fragmentNotAllowed
        /// Whitespace or control characters inside the URL.
        case invalidCharacter
    }

    /// What is wrong.
    public let reason: Reason

    /// Creates an error for a reason.
    public init(_ reason: Reason) {
        self.reason = reason
    }

    /// A sentence naming what is wrong and what a valid URL looks like.
    public var message: String {
        switch reason {
        case .empty:
            return "the ingest URL is empty: paste the server URL, e.g. rtmps://live.restream.io/live"
        case .missingScheme:
            return "the ingest URL has no scheme: it must start with rtmp:// or rtmps://"
        case .unsupportedScheme(let scheme):
            return "unsupported scheme '\(scheme)': use rtmp:// (port 1935) or rtmps:// (TLS, port 443), or "
                + "https:// (http://) for a WHIP endpoint"
        case .missingHost:
            return "the ingest URL has no host: expected rtmp://HOST/APP"
        case .invalidHost:
            return "the host of the ingest URL is not valid: use a host name, an IPv4 address or [IPv6]"
        case .invalidPort(let port):
            return "invalid port '\(port)': it must be a number from 1 to 65535"
        case .emptyApp:
            return "the ingest URL has no application path: expected rtmp://HOST/APP, e.g. rtmp://host/live"
        case .emptyPathSegment:
            return "the application path has an empty segment ('//'): remove the extra slash"
        case .userInfoNotAllowed:
            return "the ingest URL contains user:password@: RTMP does not use it; "
                + "remove it and set the stream key separately"
        case .fragmentNotAllowed:
            return "the ingest URL contains a '#' fragment: remove it"
        case .invalidCharacter:
            return "the ingest URL contains spaces or control characters: paste it again without them"
        }
    }

    /// The message.
    public var description: String { message }
}
