import Encoders
import Testing

/// Copying a picture into a pixel buffer's planes, whose rows are longer (VideoToolbox's planar pool).
struct I420PlanesTests {
    @Test(arguments: [(4, 2), (5, 3)])
    func everyRowOfEveryPlaneLandsAtItsStride(width: Int, height: Int) throws {
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let y = (0..<width * height).map { UInt8($0) }
        let u = (0..<chromaWidth * chromaHeight).map { UInt8(100 + $0) }
        let v = (0..<chromaWidth * chromaHeight).map { UInt8(200 + $0) }
        // Destination rows of 8 bytes (16 for luma), filled with 0xFF where nothing is to be written.
        var luma = [UInt8](repeating: 0xFF, count: 16 * height)
        var cb = [UInt8](repeating: 0xFF, count: 8 * chromaHeight)
        var cr = [UInt8](repeating: 0xFF, count: 8 * chromaHeight)
        let strides = [16, 8, 8]
        let copied = y.withUnsafeBufferPointer { yBytes in
            u.withUnsafeBufferPointer { uBytes in
                v.withUnsafeBufferPointer { vBytes in
                    luma.withUnsafeMutableBytes { p0 in
                        cb.withUnsafeMutableBytes { p1 in
                            cr.withUnsafeMutableBytes { p2 in
                                let bases = [p0.baseAddress!, p1.baseAddress!, p2.baseAddress!]
                                return I420Planes(width: width, height: height, y: yBytes.baseAddress!,
                                                  yStride: width, u: uBytes.baseAddress!, uStride: chromaWidth,
                                                  v: vBytes.baseAddress!, vStride: chromaWidth)
                                    .copy { (bases[$0], strides[$0]) }
                            }
                        }
                    }
                }
            }
        }
        #expect(copied)
        let planes = [luma, cb, cr]
        for row in 0..<height {
            #expect(Array(planes[0][row * 16..<row * 16 + width]) == Array(y[row * width..<(row + 1) * width]))
            #expect(planes[0][row * 16 + width] == 0xFF)  // past the row: untouched
        }
        for row in 0..<chromaHeight {
            let source = row * chromaWidth..<(row + 1) * chromaWidth
            #expect(Array(planes[1][row * 8..<row * 8 + chromaWidth]) == Array(u[source]))
            #expect(Array(planes[2][row * 8..<row * 8 + chromaWidth]) == Array(v[source]))
        }
    }

    @Test func aPlaneWithoutADestinationStopsTheCopy() {
        let luma = [UInt8](repeating: 1, count: 4)
        var asked: [Int] = []
        var target = [UInt8](repeating: 0, count: 4)
        let copied = luma.withUnsafeBufferPointer { bytes in
            target.withUnsafeMutableBytes { destination in
                I420Planes(width: 2, height: 2, y: bytes.baseAddress!, yStride: 2, u: bytes.baseAddress!, uStride: 1,
                           v: bytes.baseAddress!, vStride: 1)
                    .copy { plane in
                        asked.append(plane)
                        return plane == 0 ? (destination.baseAddress!, 2) : nil
                    }
            }
        }
        #expect(!copied)
        #expect(asked == [0, 1])
        #expect(target == [1, 1, 1, 1])
    }
}
