import Media
import StreamCore

/// The "screen" of a broadcast that runs on any machine: Media's moving `ScreenPattern` with a frame counter, plus a
/// strip of changing noise, in BGRA frames from a small bounded pool (the steady state allocates nothing).
///
/// The noise strip (the left half of the bottom quarter, in 4×4-pixel blocks of random grey) gives the encoder real
/// work: the flat pattern alone encodes to ~150 kbps whatever the setting, which would make the bitrate, the send
/// queue and adaptive bitrate untestable. The frame counter and the right half stay clean, where a PiP usually sits.
public final class TestScreenSource {
    /// The pattern drawn.
    public let pattern: ScreenPattern
    /// The rectangle filled with noise.
    public let noiseRect: PiPRect
    private let pool: FramePool
    private var noiseRow: [UInt32]
    private var random: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// Side of one noise block in pixels.
    public static let noiseBlockSize = 4

    /// Creates a source of `size` (e.g. 1920×1080, or 1179×2556 for a portrait phone).
    /// - Parameter size: at least 64×64.
    public init(size: PixelSize) {
        pattern = ScreenPattern(width: size.width, height: size.height)
        pool = FramePool(format: .bgra, width: size.width, height: size.height, maxCount: 3)
        let top = size.height * 3 / 4
        noiseRect = PiPRect(x: 0, y: top, width: size.width / 2, height: size.height - top)
        noiseRow = [UInt32](repeating: 0, count: max(noiseRect.width, 1))
    }

    /// The pool's counters.
    public var statistics: PoolStatistics { pool.statistics }

    /// Frame `index`, stamped `pts` (nanoseconds on the session clock); nil when every pooled frame is still in use.
    public func frame(index: Int, pts: Int64) -> VideoFrame? {
        guard var frame = pool.makeFrame(pts: pts) else { return nil }
        pattern.render(frameIndex: index, into: &frame)
        drawNoise(into: &frame)
        return frame
    }

    private func drawNoise(into frame: inout VideoFrame) {
        let rect = noiseRect
        let block = Self.noiseBlockSize
        guard rect.width > 0, rect.height > 0 else { return }
        frame.withUnsafeMutablePlanes { planes in
            let base = planes.baseAddress(ofPlane: 0)
            let stride = planes.stride(ofPlane: 0)
            noiseRow.withUnsafeMutableBufferPointer { row in
                guard let rowStart = row.baseAddress else { return }
                var y = 0
                while y < rect.height {
                    var x = 0
                    while x < rect.width {
                        let level = UInt32(truncatingIfNeeded: nextRandom() >> 56)
                        let word = 0xFF00_0000 | level << 16 | level << 8 | level
                        for offset in x..<min(x + block, rect.width) { row[offset] = word }
                        x += block
                    }
                    for line in y..<min(y + block, rect.height) {
                        UnsafeMutableRawPointer(base + (rect.y + line) * stride + rect.x * 4)
                            .assumingMemoryBound(to: UInt32.self).update(from: rowStart, count: rect.width)
                    }
                    y += block
                }
            }
        }
    }

    /// xorshift64: fast, deterministic, good enough for picture noise.
    private func nextRandom() -> UInt64 {
        random ^= random << 13
        random ^= random >> 7
        random ^= random << 17
        return random
    }
}
