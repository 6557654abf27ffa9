import Testing
import Media

@Suite struct FrameLayoutTests {
    @Test(arguments: [(PixelFormat.bgra, 1), (.i420, 3), (.nv12, 2)])
    func planeCounts(format: PixelFormat, planes: Int) {
        #expect(format.planeCount == planes)
    }

    @Test func i420StridesAreAlignedAndPlanesDoNotOverlap() {
        let layout = FrameLayout(format: .i420, width: 1179, height: 2555)
        #expect(layout.stride(ofPlane: 0) == 1216)  // 1179 rounded up to 64
        #expect(layout.stride(ofPlane: 1) == 640)  // chroma 590 rounded up to 64
        #expect(layout.rows(ofPlane: 0) == 2555)
        #expect(layout.rows(ofPlane: 1) == 1278)  // (2555 + 1) / 2
        #expect(layout.rowBytes(ofPlane: 1) == 590)
        #expect(layout.offset(ofPlane: 1) >= layout.stride(ofPlane: 0) * 2555)
        #expect(layout.offset(ofPlane: 2) >= layout.offset(ofPlane: 1) + 640 * 1278)
        #expect(layout.byteCount == layout.offset(ofPlane: 2) + 640 * 1278)
        for plane in 0..<3 {
            #expect(layout.offset(ofPlane: plane) % FrameLayout.rowAlignment == 0)
            #expect(layout.stride(ofPlane: plane) % FrameLayout.rowAlignment == 0)
        }
    }

    @Test func bgraAndNV12Layouts() {
        let bgra = FrameLayout(format: .bgra, width: 1179, height: 2556)
        #expect(bgra.stride(ofPlane: 0) == 4736)  // 4716 bytes rounded up to 64
        #expect(bgra.rowBytes(ofPlane: 0) == 4716)
        #expect(bgra.byteCount == 4736 * 2556)
        let nv12 = FrameLayout(format: .nv12, width: 640, height: 480)
        #expect(nv12.stride(ofPlane: 0) == 640)
        #expect(nv12.stride(ofPlane: 1) == 640)  // 320 interleaved U,V pairs
        #expect(nv12.offset(ofPlane: 1) == 640 * 480)
        #expect(nv12.byteCount == 640 * 480 * 3 / 2)
    }
}
