/// An encoder failure: what went wrong, in words a person can act on.
///
/// Compare `code` to tell failures apart; show `message` (also the `description`) to people.
public struct EncoderError: Error, Hashable, CustomStringConvertible {
    /// The kind of failure, comparable without parsing the message.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case invalidConfiguration
            case invalidInput
            case openFailed
            case encodeFailed
            case reconfigureFailed
            case finished
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The settings cannot work (odd size, zero frame rate, zero bitrate, unknown preset, ...).
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// A picture or sample buffer handed to `encode` does not match the configuration.
        public static let invalidInput = Code(.invalidInput)
        /// The codec library refused to open an encoder with valid-looking settings.
        public static let openFailed = Code(.openFailed)
        /// The codec library failed while encoding.
        public static let encodeFailed = Code(.encodeFailed)
        /// A live change (bitrate) was refused; the encoder keeps its previous settings.
        public static let reconfigureFailed = Code(.reconfigureFailed)
        /// The encoder was flushed and takes no more input.
        public static let finished = Code(.finished)

        /// The code's name, for logs.
        public var description: String {
            switch base {
            case .invalidConfiguration: "invalidConfiguration"
            case .invalidInput: "invalidInput"
            case .openFailed: "openFailed"
            case .encodeFailed: "encodeFailed"
            case .reconfigureFailed: "reconfigureFailed"
            case .finished: "finished"
            }
        }
    }

    /// The kind of failure.
    public let code: Code
    /// What happened and what to do about it.
    public let message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: the kind of failure.
    ///   - message: a sentence saying what happened and what to do.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The human message.
    public var description: String { message }
}
