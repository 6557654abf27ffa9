/// An error from the media pipeline: a frame of the wrong format or size, or a libyuv call that failed.
public struct MediaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Hashable, Sendable {
        /// No one-step conversion between the two formats.
        case unsupportedConversion
        /// A frame's size is not the one required.
        case sizeMismatch
        /// A libyuv call failed.
        case libyuvFailed
    }

    /// The kind of failure.
    public let code: Code
    /// What happened and what to do about it.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A human-readable explanation of the error.
    public var description: String { message }

    static func unsupportedConversion(from source: PixelFormat, to destination: PixelFormat, scaling: Bool) -> Self {
        let how = scaling ? " with scaling" : ""
        return Self(.unsupportedConversion,
                    "cannot convert \(source) to \(destination)\(how) in one step; "
                        + "use EncodeFrameConverter, which goes through an intermediate frame")
    }

    static func sizeMismatch(_ what: String, expected: (Int, Int), actual: (Int, Int)) -> Self {
        Self(.sizeMismatch,
             "\(what) is \(actual.0)x\(actual.1) but \(expected.0)x\(expected.1) is required; "
                 + "allocate the destination with the source's size or scale first")
    }

    static func libyuv(_ function: String, returned status: Int32) -> Self {
        Self(.libyuvFailed, "libyuv \(function) failed with status \(status); check the frame sizes and strides")
    }
}
