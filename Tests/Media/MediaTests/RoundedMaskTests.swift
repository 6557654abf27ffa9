import Testing
@testable import Media

@Suite struct RoundedMaskTests {
    /// Independent reference: a pixel is visible unless its centre lies in a corner square outside the quarter
    /// circle of that corner.
    static func reference(x: Int, y: Int, width: Int, height: Int, radius: Int) -> Bool {
        let r = Double(radius)
        let cx = Double(x) + 0.5
        let cy = Double(y) + 0.5
        let nearestX = min(max(cx, r), Double(width) - r)
        let nearestY = min(max(cy, r), Double(height) - r)
        let dx = cx - nearestX
        let dy = cy - nearestY
        return dx * dx + dy * dy <= r * r
    }

    @Test(arguments: [(320, 240), (128, 96), (512, 384), (236, 176), (2, 2)])
    func maskMatchesTheRoundedRectangle(width: Int, height: Int) {
        let mask = RoundedMask(width: width, height: height, radiusFraction: 0.12)
        #expect(mask.radius == Int((Double(min(width, height)) * 0.12).rounded()))
        var mismatches = 0
        for y in 0..<height {
            for x in 0..<width where mask.isVisible(x: x, y: y)
                != Self.reference(x: x, y: y, width: width, height: height, radius: mask.radius) {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
        #expect(mask.lumaInsets.count == height)
        #expect(mask.chromaInsets.count == height / 2)
    }

    @Test func cornersAreCutAndTheMiddleIsFull() {
        let mask = RoundedMask(width: 320, height: 240, radiusFraction: 0.12)
        #expect(mask.radius == 29)  // 12 % of 240, rounded
        #expect(!mask.isVisible(x: 0, y: 0))
        #expect(!mask.isVisible(x: 319, y: 239))
        #expect(mask.isVisible(x: 29, y: 29))
        #expect(mask.lumaInsets[120] == 0)
        #expect(mask.lumaInsets[0] == mask.lumaInsets[239])
        for chromaRow in 0..<120 {
            // Chroma is drawn only where the whole 2×2 luma block is picture.
            let inset = mask.chromaInsets[chromaRow]
            #expect(inset * 2 >= mask.lumaInsets[chromaRow * 2])
            #expect(inset * 2 >= mask.lumaInsets[chromaRow * 2 + 1])
        }
    }

    @Test func zeroRadiusIsARectangle() {
        let mask = RoundedMask(width: 64, height: 48, radiusFraction: 0)
        #expect(mask.lumaInsets.allSatisfy { $0 == 0 })
        #expect(mask.chromaInsets.allSatisfy { $0 == 0 })
    }
}
