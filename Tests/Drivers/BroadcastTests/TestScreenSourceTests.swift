import Broadcast
import Media
import StreamCore
import Testing

/// The test screen's noise strip: what gives the encoder real work must be 4×4 blocks of opaque grey that change
/// every frame, in every band, and must stay inside its rectangle.
@Suite struct TestScreenSourceTests {
    /// The noise strip's pixels of `frame`, row by row (BGRA words).
    private static func noise(of frame: VideoFrame, in rect: PiPRect) -> [[UInt32]] {
        frame.withUnsafePlanes { planes in
            (0..<rect.height).map { line in
                let row = UnsafeRawPointer(planes.baseAddress(ofPlane: 0) + (rect.y + line) * planes.stride(ofPlane: 0))
                    .assumingMemoryBound(to: UInt32.self)
                return (0..<rect.width).map { row[rect.x + $0] }
            }
        }
    }

    @Test(arguments: [(1280, 720), (1918, 1078), (64, 64)])
    func noiseIsOpaqueGreyBlocksThatChangeEveryFrame(width: Int, height: Int) throws {
        let source = TestScreenSource(size: PixelSize(width: width, height: height))
        let rect = source.noiseRect
        let block = TestScreenSource.noiseBlockSize
        let first = try #require(source.frame(index: 0, pts: 0), "the pool gave no frame")
        let firstNoise = Self.noise(of: first, in: rect)
        let second = try #require(source.frame(index: 1, pts: 33_333_333), "the pool gave no second frame")
        let secondNoise = Self.noise(of: second, in: rect)
        var levels = Set<UInt32>()
        for line in 0..<rect.height {
            for x in 0..<rect.width {
                let pixel = firstNoise[line][x]
                let level = pixel & 0xFF
                #expect(pixel == 0xFF00_0000 | level << 16 | level << 8 | level,
                        "pixel (\(x), \(line)) of the strip is not opaque grey: \(String(pixel, radix: 16))")
                levels.insert(level)
                // One level per block: each pixel repeats its block's top-left one.
                let corner = firstNoise[line / block * block][x / block * block]
                if pixel != corner {
                    Issue.record("pixel (\(x), \(line)) differs from its \(block)×\(block) block's corner")
                    return
                }
            }
        }
        #expect(levels.count > 16, "the strip has only \(levels.count) grey levels: it is not noise")
        let bands = (rect.height + block - 1) / block
        let changed = (0..<bands).filter { firstNoise[$0 * block] != secondNoise[$0 * block] }.count
        #expect(changed == bands, "only \(changed) of \(bands) bands changed between two frames")
    }
}
