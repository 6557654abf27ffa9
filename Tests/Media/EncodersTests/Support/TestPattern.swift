import Encoders

/// A synthetic I420 picture: diagonal bands that move every frame, plus noise so the encoder has to spend bits
/// (a smooth pattern would compress far below any live bitrate and say nothing about rate control).
struct TestPattern {
    let width: Int
    let height: Int
    private(set) var y: [UInt8]
    private(set) var u: [UInt8]
    private(set) var v: [UInt8]
    private var seed: UInt32 = 0x1234_5678

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        y = [UInt8](repeating: 0, count: width * height)
        u = [UInt8](repeating: 128, count: ((width + 1) / 2) * ((height + 1) / 2))
        v = u
    }

    /// Draws picture number `frame`.
    mutating func draw(frame: Int, noise: UInt32 = 31) {
        var state = seed
        y.withUnsafeMutableBufferPointer { luma in
            for row in 0..<height {
                let base = row * width
                for column in 0..<width {
                    state ^= state << 13
                    state ^= state >> 17
                    state ^= state << 5
                    let band = (column + row + frame * 8) & 0xFF
                    luma[base + column] = UInt8(truncatingIfNeeded: band &+ Int(state % (noise + 1)))
                }
            }
        }
        let chromaWidth = (width + 1) / 2
        u.withUnsafeMutableBufferPointer { cb in
            for index in cb.indices { cb[index] = UInt8(truncatingIfNeeded: (index % chromaWidth) + frame * 3) }
        }
        seed = state
    }

    /// Lends the planes to `body` as an `I420Planes` view.
    func withPlanes<R>(_ body: (I420Planes) throws -> R) rethrows -> R {
        try y.withUnsafeBufferPointer { luma in
            try u.withUnsafeBufferPointer { cb in
                try v.withUnsafeBufferPointer { cr in
                    try body(I420Planes(
                        width: width, height: height,
                        y: luma.baseAddress!, yStride: width,
                        u: cb.baseAddress!, uStride: (width + 1) / 2,
                        v: cr.baseAddress!, vStride: (width + 1) / 2))
                }
            }
        }
    }
}
