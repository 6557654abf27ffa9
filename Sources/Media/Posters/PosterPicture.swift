/// A poster: one keyframe of a show's picture as a JPEG.
public struct PosterPicture: Sendable, Hashable {
    /// The JPEG file's bytes.
    public var jpeg: [UInt8]
    /// The picture's width in pixels.
    public var width: Int
    /// The picture's height in pixels.
    public var height: Int

    /// Creates a poster.
    public init(jpeg: [UInt8], width: Int, height: Int) {
        self.jpeg = jpeg
        self.width = width
        self.height = height
    }
}
