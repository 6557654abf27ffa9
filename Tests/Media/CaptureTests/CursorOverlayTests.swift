import Capture
import Media
import Testing

@Suite struct CursorOverlayTests {
    @Test func blendsPremultipliedPixelsAndClipsAtTheEdges() {
        var frame = VideoFrame(layout: FrameLayout(format: .bgra, width: 4, height: 3))
        frame.fill(BGRAColor(b: 0, g: 0, r: 200))
        // A 2x2 cursor: opaque white, transparent, half-transparent black (premultiplied: 0x80000000), opaque blue.
        let cursor: [UInt32] = [0xFFFF_FFFF, 0x0000_0000, 0x8000_0000, 0xFF00_00FF]
        cursor.withUnsafeBufferPointer { pixels in
            CursorOverlay.draw(pixels, width: 2, height: 2, x: 3, y: 1, into: &frame)   // right half clipped
            CursorOverlay.draw(pixels, width: 2, height: 2, x: -1, y: -1, into: &frame) // top-left clipped
        }
        #expect(frame.bgra(x: 3, y: 1) == BGRAColor(b: 255, g: 255, r: 255))     // white, opaque
        #expect(frame.bgra(x: 3, y: 2) == BGRAColor(b: 0, g: 0, r: 100, a: 255))  // half black over red
        #expect(frame.bgra(x: 0, y: 0) == BGRAColor(b: 255, g: 0, r: 0))         // blue, from the cursor's last pixel
        #expect(frame.bgra(x: 1, y: 1) == BGRAColor(b: 0, g: 0, r: 200))         // untouched
        #expect(frame.bgra(x: 2, y: 1) == BGRAColor(b: 0, g: 0, r: 200))         // transparent pixel left alone
    }

    @Test func cursorEntirelyOutsideChangesNothing() {
        var frame = VideoFrame(layout: FrameLayout(format: .bgra, width: 2, height: 2))
        frame.fill(BGRAColor(b: 1, g: 2, r: 3))
        [UInt32](repeating: 0xFFFF_FFFF, count: 4).withUnsafeBufferPointer { pixels in
            CursorOverlay.draw(pixels, width: 2, height: 2, x: 2, y: 0, into: &frame)
            CursorOverlay.draw(pixels, width: 2, height: 2, x: -2, y: -2, into: &frame)
        }
        for y in 0..<2 { for x in 0..<2 { #expect(frame.bgra(x: x, y: y) == BGRAColor(b: 1, g: 2, r: 3)) } }
    }
}
