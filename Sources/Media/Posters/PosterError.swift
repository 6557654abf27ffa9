/// Why a keyframe gave no poster.
public struct PosterError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case libraryMissing
        case decodeFailed
        case unsupportedPicture
        case compressFailed
    }

    private let code: Code
    /// What happened and what to do.
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// libavcodec or libturbojpeg cannot be loaded (the reason is dlerror's text).
    static func libraryMissing(_ library: String, _ reason: String) -> PosterError {
        PosterError(.libraryMissing, "\(library) cannot be loaded (\(reason)): install it for posters "
                    + "(scripts/install-deps.sh)")
    }

    /// The H.264 decoder refused the keyframe or gave no picture.
    public static func decodeFailed(_ reason: String) -> PosterError {
        PosterError(.decodeFailed, "the keyframe could not be decoded: \(reason)")
    }

    /// The decoded picture is not 8-bit 4:2:0, the one layout the compressor takes as it is.
    static func unsupportedPicture(_ reason: String) -> PosterError {
        PosterError(.unsupportedPicture, "the picture cannot be a poster: \(reason)")
    }

    /// libturbojpeg refused the picture.
    static func compressFailed(_ reason: String) -> PosterError {
        PosterError(.compressFailed, "the picture could not be compressed: \(reason)")
    }
}
