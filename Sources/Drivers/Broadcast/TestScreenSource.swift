#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Media
import StreamCore

/// The "screen" of a broadcast that runs on any machine: Media's moving `ScreenPattern` with a frame counter and the
/// wall clock as a time code (so a viewer's latency can be read from the picture) and as `HH:MM:SS.cc` text (so a
/// person can), plus a strip of changing noise, in BGRA frames from a small bounded pool (the steady state allocates
/// nothing).
///
/// The noise strip (the left half of the bottom quarter, in 4×4-pixel blocks of random grey) gives the encoder real
/// work: the flat pattern alone encodes to ~150 kbps whatever the setting, which would make the bitrate, the send
/// queue and adaptive bitrate untestable. The frame counter and the right half stay clean, where a PiP usually sits.
public final class TestScreenSource: ScreenSource {
    /// The pattern drawn.
    public let pattern: ScreenPattern
    /// The rectangle filled with noise.
    public let noiseRect: PiPRect
    private let pool: FramePool
    /// One grey level per 4×4 block: `noiseTextureRows` rows of `noiseTextureBlocks` (57 KB at 720p, where a texture
    /// of BGRA pixels took 0.9 MB of the broadcast's resident memory).
    private let noiseTexture: [UInt8]
    private let noiseTextureBlocks: Int
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
        noiseTextureBlocks = (noiseRect.width + 256 + Self.noiseBlockSize - 1) / Self.noiseBlockSize
        var seed = random
        noiseTexture = Self.makeNoiseTexture(blocks: noiseTextureBlocks, seed: &seed)
    }

    /// The pattern's size.
    public var size: PixelSize { PixelSize(width: pattern.width, height: pattern.height) }

    /// The pool's counters.
    public var statistics: PoolStatistics { pool.statistics }

    /// Frame `index`, stamped `pts` (nanoseconds on the session clock); nil when every pooled frame is still in use.
    public func frame(index: Int, pts: Int64) -> VideoFrame? {
        guard var frame = pool.makeFrame(pts: pts) else { return nil }
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        pattern.render(frameIndex: index, timeCode: ScreenPattern.timeCode(millisecondsSinceEpoch: now), clock: now,
                       into: &frame)
        drawNoise(into: &frame)
        return frame
    }

    private func drawNoise(into frame: inout VideoFrame) {
        let rect = noiseRect
        let block = Self.noiseBlockSize
        guard rect.width > 0, rect.height > 0 else { return }
        // Each band of `block` rows is a row of the prepared texture, at a random row and a random horizontal
        // offset: the picture changes unpredictably every frame. The band's first line is expanded from the grey
        // levels; its other lines are copies of it.
        let rows = Self.noiseTextureRows
        let slackBlocks = noiseTextureBlocks - (rect.width + block - 1) / block
        frame.withUnsafeMutablePlanes { planes in
            let base = planes.baseAddress(ofPlane: 0)
            let stride = planes.stride(ofPlane: 0)
            noiseTexture.withUnsafeBufferPointer { texture in
                guard let textureStart = texture.baseAddress else { return }
                var y = 0
                while y < rect.height {
                    let random = nextRandom()
                    let row = Int(truncatingIfNeeded: random & UInt64(rows - 1))
                    let offset = Int(truncatingIfNeeded: (random >> 16) % UInt64(slackBlocks + 1))
                    let levels = textureStart + row * noiseTextureBlocks + offset
                    let first = UnsafeMutableRawPointer(base + (rect.y + y) * stride + rect.x * 4)
                        .assumingMemoryBound(to: UInt32.self)
                    for x in 0..<rect.width {
                        let level = UInt32(levels[x / block])
                        first[x] = 0xFF00_0000 | level << 16 | level << 8 | level
                    }
                    for line in y + 1..<min(y + block, rect.height) {
                        UnsafeMutableRawPointer(base + (rect.y + line) * stride + rect.x * 4)
                            .assumingMemoryBound(to: UInt32.self).update(from: first, count: rect.width)
                    }
                    y += block
                }
            }
        }
    }

    /// Rows of the noise texture (a power of two).
    private static let noiseTextureRows = 256

    /// Random grey levels, `noiseTextureRows` rows of `blocks` blocks, made once.
    private static func makeNoiseTexture(blocks: Int, seed: inout UInt64) -> [UInt8] {
        var texture = [UInt8](repeating: 0, count: blocks * noiseTextureRows)
        for index in texture.indices {
            seed ^= seed << 13
            seed ^= seed >> 7
            seed ^= seed << 17
            texture[index] = UInt8(truncatingIfNeeded: seed >> 56)
        }
        return texture
    }

    /// xorshift64: fast, deterministic, good enough for picture noise.
    private func nextRandom() -> UInt64 {
        random ^= random << 13
        random ^= random >> 7
        random ^= random << 17
        return random
    }
}
