/// A 2-D affine transform with Core Graphics' fields and conventions, so that the compositor's geometry is decided
/// and tested here and the iOS shell only hands the six numbers to `CGAffineTransform(a:b:c:d:tx:ty:)`.
///
/// A point (x, y) maps to (a·x + c·y + tx, b·x + d·y + ty). Core Image's coordinates have their origin at the
/// bottom left, which `FacecamOverlay`'s `y` already is.
public struct ImageTransform: Sendable, Hashable {
    /// The x scale (and rotation) term.
    public var a: Double
    /// The y shear (and rotation) term.
    public var b: Double
    /// The x shear (and rotation) term.
    public var c: Double
    /// The y scale (and rotation) term.
    public var d: Double
    /// The x translation.
    public var tx: Double
    /// The y translation.
    public var ty: Double

    /// Creates a transform from its six terms.
    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.tx = tx
        self.ty = ty
    }

    /// The transform that changes nothing.
    public static let identity = ImageTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// Moves by (x, y).
    public static func translation(x: Double, y: Double) -> ImageTransform {
        ImageTransform(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y)
    }

    /// Scales by (x, y) about the origin.
    public static func scale(x: Double, y: Double) -> ImageTransform {
        ImageTransform(a: x, b: 0, c: 0, d: y, tx: 0, ty: 0)
    }

    /// This transform, then `next`: `CGAffineTransform.concatenating(_:)`.
    public func concatenating(_ next: ImageTransform) -> ImageTransform {
        ImageTransform(a: a * next.a + b * next.c, b: a * next.b + b * next.d,
                       c: c * next.a + d * next.c, d: c * next.b + d * next.d,
                       tx: tx * next.a + ty * next.c + next.tx, ty: tx * next.b + ty * next.d + next.ty)
    }

    /// Where a point goes.
    public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        (a * x + c * y + tx, b * x + d * y + ty)
    }

    /// Fills a rectangle with an image's extent: moves the extent's corner to (x, y) and scales it to width × height
    /// (each axis on its own, as the compositor's fit does; the sizes keep the aspect ratio where it matters).
    /// - Parameters:
    ///   - extentX: the image's extent (`CIImage.extent`), left edge.
    ///   - extentY: its bottom edge.
    ///   - extentWidth: its width, above zero.
    ///   - extentHeight: its height, above zero.
    ///   - x: the target's left edge.
    ///   - y: the target's bottom edge (Core Image coordinates).
    ///   - width: the target's width.
    ///   - height: the target's height.
    public static func fit(extentX: Double, extentY: Double, extentWidth: Double, extentHeight: Double,
                           intoX x: Double = 0, y: Double = 0, width: Double, height: Double) -> ImageTransform {
        translation(x: -extentX, y: -extentY)
            .concatenating(scale(x: width / extentWidth, y: height / extentHeight))
            .concatenating(translation(x: x, y: y))
    }
}
