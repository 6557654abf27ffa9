/// Why a broadcast, or one of its outputs, failed. Messages never contain the stream key.
public struct BroadcastError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case invalidConfiguration, encoderFailed, connectFailed, connectionLost, outputFailed, recordingFailed
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
        /// An output failed in another way.
        public static let outputFailed = Code(.outputFailed)
        /// The local recording could not be written.
        public static let recordingFailed = Code(.recordingFailed)
        /// The code's name.
        public var description: String { value.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What happened and what to do, without secrets.
    public let message: String
    /// Whether trying again later may work (a network hiccup rather than a refusal).
    public let isTransient: Bool

    /// Creates an error.
    /// - Parameters:
    ///   - code: the kind of failure.
    ///   - message: a human message; must already be redacted.
    ///   - isTransient: whether a retry may succeed.
    public init(_ code: Code, _ message: String, isTransient: Bool = false) {
        self.code = code
        self.message = message
        self.isTransient = isTransient
    }

    /// The message.
    public var description: String { message }
}
