/// The rounded-rectangle shape of the facecam picture as one left inset per row: row `r` of the picture is
/// visible from `inset[r]` to `width - inset[r]`, so compositing a row is one `memcpy`. Computed once per geometry.
struct RoundedMask: Equatable {
    let width: Int
    let height: Int
    let radius: Int
    /// Per luma row, the number of hidden pixels at each end.
    let lumaInsets: [Int]
    /// Per chroma row (half resolution), hidden chroma samples at each end.
    let chromaInsets: [Int]

    /// - Parameters:
    ///   - width: picture width in pixels (even).
    ///   - height: picture height in pixels (even).
    ///   - radiusFraction: corner radius as a fraction of the short side, clamped to 0...0.5.
    init(width: Int, height: Int, radiusFraction: Double) {
        self.width = width
        self.height = height
        let radius = Self.radius(width: width, height: height, fraction: radiusFraction)
        self.radius = radius
        var luma = [Int](repeating: 0, count: height)
        let r = Double(radius)
        for row in 0..<min(radius, height) {
            // A pixel is visible when its centre lies inside the corner circle centred at (r, r).
            let dy = r - (Double(row) + 0.5)
            let dx = (r * r - dy * dy).squareRoot()
            let inset = Int((r - dx - 0.5).rounded(.up))
            luma[row] = max(inset, 0)
            luma[height - 1 - row] = max(inset, 0)
        }
        // A chroma sample covers a 2×2 luma block; draw it only where the whole block is picture.
        let chromaRows = (height + 1) / 2
        chromaInsets = (0..<chromaRows).map { chromaRow in
            let top = luma[chromaRow * 2]
            let bottom = luma[min(chromaRow * 2 + 1, height - 1)]
            return (max(top, bottom) + 1) / 2
        }
        lumaInsets = luma
    }

    /// The corner radius in pixels for a picture of this size.
    static func radius(width: Int, height: Int, fraction: Double) -> Int {
        let fraction = fraction.isNaN ? 0 : min(max(fraction, 0), 0.5)
        return Int((Double(min(width, height)) * fraction).rounded())
    }

    /// Whether the luma pixel (`x`, `y`) of the picture is drawn.
    func isVisible(x: Int, y: Int) -> Bool {
        let inset = lumaInsets[y]
        return x >= inset && x < width - inset
    }
}
