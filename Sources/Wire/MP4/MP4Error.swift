/// An error from the fMP4 writer: a track configuration or sample it cannot turn into ISO BMFF.
///
/// `description` says what happened and what to do about it. Compare `code` to tell errors apart.
public struct MP4Error: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is; compare against the static members.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case invalidSequenceParameterSet = "invalid H.264 sequence parameter set"
            case invalidConfiguration = "invalid track configuration"
            case invalidSample = "invalid sample"
            case invalidFile = "invalid fragmented MP4 file"
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The SPS inside the AVC configuration could not be parsed (or describes no picture).
        public static let invalidSequenceParameterSet = Code(.invalidSequenceParameterSet)
        /// A sequence header (avcC or AudioSpecificConfig) cannot describe an MP4 track.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// An audio or video tag cannot become a sample (malformed body, unsupported codec, no configuration yet).
        public static let invalidSample = Code(.invalidSample)
        /// A file read as fragmented MP4 is not one (a box that overruns its parent, a fragment before the `moov`).
        public static let invalidFile = Code(.invalidFile)

        /// A short name for the code.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// What happened, with the numbers involved, and what to do.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A readable account of the error.
    public var description: String { "\(code): \(message)" }
}
