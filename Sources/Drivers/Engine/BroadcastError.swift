import Publisher

/// Why a broadcast, or one of its outputs, failed. Messages never contain the stream key.
public struct BroadcastError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case invalidConfiguration, encoderFailed, connectFailed, connectionLost, frameTooLarge, recordingFailed,
                 captureFailed
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        /// The settings or sources cannot make a broadcast.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The video or audio encoder failed.
        public static let encoderFailed = Code(.encoderFailed)
        /// The ingest could not be reached or refused the stream.
        public static let connectFailed = Code(.connectFailed)
        /// The connection dropped and reconnecting gave up.
        public static let connectionLost = Code(.connectionLost)
        /// One frame was too large to send (over RTMP's 16 MiB message limit): the output skipped it and restarts
        /// video at the next keyframe; the connection goes on.
        public static let frameTooLarge = Code(.frameTooLarge)
        /// The local recording could not be written.
        public static let recordingFailed = Code(.recordingFailed)
        /// The screen, camera or audio capture failed while live.
        public static let captureFailed = Code(.captureFailed)
        /// The code's name.
        public var description: String { value.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What happened and what to do, without secrets.
    public let message: String
    /// Whether trying again later may work (a network hiccup rather than a refusal).
    public let isTransient: Bool
    /// The publish failure underneath a connect or connection failure (its code and the server's status code),
    /// for a caller that words its own message (the iOS extension's alert); nil for other failures.
    public let publishError: PublishError?
    /// For a lost connection noticed by the silence of the other end (a WebRTC path that stopped answering): how
    /// long it had been silent, so the outage is counted from when the silence began.
    public let silentFor: Duration?

    /// Creates an error.
    /// - Parameters:
    ///   - code: the kind of failure.
    ///   - message: a human message; must already be redacted.
    ///   - isTransient: whether a retry may succeed.
    ///   - publishError: the RTMP client's error underneath, if any.
    ///   - silentFor: how long the other end had been silent when the connection was given up, if that is how
    ///     the loss was noticed.
    public init(_ code: Code, _ message: String, isTransient: Bool = false, publishError: PublishError? = nil,
                silentFor: Duration? = nil) {
        self.code = code
        self.message = message
        self.isTransient = isTransient
        self.publishError = publishError
        self.silentFor = silentFor
    }

    /// The message.
    public var description: String { message }
}
