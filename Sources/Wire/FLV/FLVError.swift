/// An error from the FLV codecs: malformed or unsupported bytes, or a value that cannot be encoded.
///
/// `description` says what happened and what to do about it. Compare `code` to tell errors apart.
public struct FLVError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is; compare against the static members.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case invalidSignature = "invalid FLV signature"
            case unsupportedVersion = "unsupported FLV version"
            case invalidHeaderSize = "invalid FLV header size"
            case unknownTagType = "unknown FLV tag type"
            case encryptedTag = "encrypted FLV tag"
            case tagTooLarge = "FLV tag too large"
            case previousTagSizeMismatch = "FLV previous tag size mismatch"
            case invalidTagBody = "malformed FLV tag body"
            case unsupportedCodec = "unsupported codec"
            case invalidAVCConfiguration = "invalid AVC decoder configuration record"
            case invalidNALUnits = "invalid length-prefixed NAL units"
            case invalidAudioSpecificConfig = "invalid AAC AudioSpecificConfig"
            case invalidMetadata = "invalid onMetaData"
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The file does not start with `FLV`.
        public static let invalidSignature = Code(.invalidSignature)
        /// The file header's version is not 1.
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// The file header's DataOffset is smaller than 9 or implausibly large.
        public static let invalidHeaderSize = Code(.invalidHeaderSize)
        /// A tag's type is not audio (8), video (9) or script data (18).
        public static let unknownTagType = Code(.unknownTagType)
        /// A tag has its Filter bit set (encrypted content), which is not supported.
        public static let encryptedTag = Code(.encryptedTag)
        /// A tag body exceeds the limit (24-bit DataSize, or the reader's configured maximum).
        public static let tagTooLarge = Code(.tagTooLarge)
        /// A PreviousTagSize field does not match the size of the tag before it.
        public static let previousTagSizeMismatch = Code(.previousTagSizeMismatch)
        /// An audio or video tag body is shorter than its fixed fields or has an undefined field value.
        public static let invalidTagBody = Code(.invalidTagBody)
        /// A tag body uses a codec other than AVC (video) or AAC (audio).
        public static let unsupportedCodec = Code(.unsupportedCodec)
        /// An AVCDecoderConfigurationRecord (or the SPS it is built from) is malformed.
        public static let invalidAVCConfiguration = Code(.invalidAVCConfiguration)
        /// A length-prefixed (AVCC) NAL unit payload is malformed.
        public static let invalidNALUnits = Code(.invalidNALUnits)
        /// An AudioSpecificConfig is malformed.
        public static let invalidAudioSpecificConfig = Code(.invalidAudioSpecificConfig)
        /// An onMetaData script data body is malformed.
        public static let invalidMetadata = Code(.invalidMetadata)

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
