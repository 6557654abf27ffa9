/// Everything that can go wrong in the RTMP module: a malformed or hostile peer, a refusal from the server,
/// or an event that does not fit the session's state.
///
/// The description says what happened and what to do. It never contains a stream key: a server's status
/// description is redacted by the publisher before it lands here, and errors say "the stream key" instead.
public struct RTMPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is, for a driver that reacts differently (retry, ask for a new key, give up).
    public enum Code: Sendable, Equatable, Hashable {
        /// The peer's first byte is not RTMP version 3 (for example an HTTP request or a TLS hello).
        case unsupportedVersion
        /// The handshake bytes are inconsistent.
        case invalidHandshake
        /// A chunk header or control message is malformed.
        case malformedChunk
        /// A Set Chunk Size outside what we accept.
        case chunkSizeOutOfRange
        /// A message longer than the accepted limit.
        case messageTooLarge
        /// The peer keeps more chunk streams or bytes in flight than the accepted limit.
        case resourceLimitExceeded
        /// A message body (AMF command, control message) that does not decode.
        case malformedMessage
        /// The server refused `connect`.
        case connectRejected
        /// The server refused `publish`.
        case publishRejected
        /// The server refused `play`.
        case playRejected
        /// The peer sent something that makes no sense in the current state.
        case unexpectedMessage
        /// The event is not allowed in the session's current state (a bug in the driver).
        case invalidState
        /// The session was closed.
        case closed
    }

    /// What kind of failure this is.
    public let code: Code
    /// The status code the server sent (for example `NetStream.Publish.BadName`), when there was one.
    public let statusCode: String?
    /// The human-readable explanation.
    public let description: String

    private init(_ code: Code, statusCode: String? = nil, _ description: String) {
        self.code = code
        self.statusCode = statusCode
        self.description = description
    }

    /// The same error with `hint` appended to its description.
    func adding(_ hint: String) -> RTMPError {
        RTMPError(code, statusCode: statusCode, description + hint)
    }

    /// The first byte from the peer is not RTMP version 3.
    /// - Parameter version: the byte received.
    static func unsupportedVersion(_ version: UInt8) -> RTMPError {
        let hint = version == UInt8(ascii: "G") || version == UInt8(ascii: "P")
            ? " (it looks like an HTTP request: is the client using the right port?)"
            : version == 0x16 ? " (it looks like a TLS hello: the client wants RTMPS on a plain RTMP port)" : ""
        return RTMPError(.unsupportedVersion, "peer sent RTMP version \(version), only version 3 is supported\(hint)")
    }

    /// The handshake is inconsistent.
    static func invalidHandshake(_ what: String) -> RTMPError {
        RTMPError(.invalidHandshake, "invalid RTMP handshake: \(what)")
    }

    /// A chunk or control message is malformed.
    static func malformedChunk(_ what: String) -> RTMPError {
        RTMPError(.malformedChunk, "malformed RTMP chunk: \(what); the peer is not speaking RTMP correctly")
    }

    /// A Set Chunk Size we do not accept.
    static func chunkSizeOutOfRange(_ size: UInt32, limit: UInt32) -> RTMPError {
        RTMPError(.chunkSizeOutOfRange, "peer set chunk size \(size), accepted range is 1...\(limit)")
    }

    /// A message longer than we accept.
    static func messageTooLarge(_ length: UInt32, limit: Int) -> RTMPError {
        RTMPError(.messageTooLarge, "peer announced a \(length)-byte message, the limit is \(limit) bytes")
    }

    /// The peer exceeds a resource limit.
    static func cannotSend(length: Int, limit: Int) -> RTMPError {
        RTMPError(.messageTooLarge, "a \(length)-byte message cannot be sent: RTMP's message length is a 24-bit "
                      + "field (at most \(limit) bytes); this message is skipped")
    }

    static func resourceLimitExceeded(_ what: String) -> RTMPError {
        RTMPError(.resourceLimitExceeded, "peer exceeded a limit: \(what); closing the connection")
    }

    /// A message body does not decode.
    static func malformedMessage(_ what: String) -> RTMPError {
        RTMPError(.malformedMessage, "malformed RTMP message: \(what)")
    }

    /// The server refused `connect`.
    /// - Parameters:
    ///   - code: the status code, for example `NetConnection.Connect.Rejected`.
    ///   - description: the server's description, already free of the stream key.
    public static func connectRejected(code: String, description: String) -> RTMPError {
        let detail = description.isEmpty ? "" : " (\(description))"
        return RTMPError(.connectRejected, statusCode: code,
                         "server refused connect: \(code)\(detail) — check the server URL and application name")
    }

    /// The server refused `publish`.
    /// - Parameters:
    ///   - code: the status code, for example `NetStream.Publish.BadName`.
    ///   - description: the server's description, already free of the stream key.
    public static func publishRejected(code: String, description: String) -> RTMPError {
        let detail = description.isEmpty ? "" : " (\(description))"
        return RTMPError(.publishRejected, statusCode: code,
                          "server refused publish: \(code)\(detail) — check the stream key")
    }

    /// The server refused `play`.
    /// - Parameters:
    ///   - code: the status code, for example `NetStream.Play.StreamNotFound`.
    ///   - description: the server's description.
    public static func playRejected(code: String, description: String) -> RTMPError {
        let detail = description.isEmpty ? "" : " (\(description))"
        return RTMPError(.playRejected, statusCode: code,
                          "server refused play: \(code)\(detail) — check the stream name")
    }

    /// The peer sent something that does not fit the session's state.
    static func unexpectedMessage(_ what: String) -> RTMPError {
        RTMPError(.unexpectedMessage, "unexpected RTMP message: \(what)")
    }

    /// The driver sent an event the session cannot take in its current state.
    static func invalidState(_ what: String) -> RTMPError {
        RTMPError(.invalidState, "\(what) is not allowed in the session's current state")
    }

    /// The session is closed.
    static func closed(_ why: String) -> RTMPError {
        RTMPError(.closed, "RTMP session closed: \(why)")
    }
}
