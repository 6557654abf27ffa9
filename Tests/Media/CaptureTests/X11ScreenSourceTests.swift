import Capture
import Foundation
import Media
import Testing
import TestSupport

@Suite(.startsPeers) struct X11ScreenSourceTests {
    /// Red as ffplay shows it (BT.601 YUV → RGB rounding leaves it a little off pure red).
    static func isRed(_ pixel: BGRAColor) -> Bool { pixel.r > 200 && pixel.g < 50 && pixel.b < 50 && pixel.a == 255 }
    static func isBlack(_ pixel: BGRAColor) -> Bool { pixel.r < 20 && pixel.g < 20 && pixel.b < 20 && pixel.a == 255 }

    /// Waits until the window ffplay opens shows up in grabs.
    static func waitForRed(_ source: X11ScreenSource, x: Int, y: Int) throws {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let frame = try source.grab(pts: 0), isRed(frame.bgra(x: x, y: y)) { return }
            usleep(50_000)
        }
        Issue.record("ffplay's red window never appeared at (\(x), \(y))")
    }

    @Test func grabsAWindowWithKnownColoursThroughSharedMemoryAndGetImage() throws {
        let xvfb = try Xvfb(width: 640, height: 480)
        defer { xvfb.stop() }
        // The window covers the screen centre, where Xvfb puts the pointer.
        let window = try xvfb.showWindow(color: "red", width: 320, height: 240, x: 160, y: 120)
        defer { window.stop() }

        let shared = try X11ScreenSource(options: .init(display: xvfb.display, drawsCursor: false))
        #expect(shared.usesSharedMemory)
        #expect((shared.screenWidth, shared.screenHeight) == (640, 480))
        #expect((shared.width, shared.height) == (640, 480))
        try Self.waitForRed(shared, x: 200, y: 150)

        let plain = try X11ScreenSource(options: .init(display: xvfb.display, useSharedMemory: false,
                                                       drawsCursor: false))
        #expect(!plain.usesSharedMemory)
        for source in [shared, plain] {
            let started = Date()
            let frame = try #require(try source.grab(pts: 42))
            let milliseconds = Date().timeIntervalSince(started) * 1_000
            print("grab 640x480 shm=\(source.usesSharedMemory): \(String(format: "%.2f", milliseconds)) ms")
            #expect(frame.pts == 42)
            #expect(frame.format == .bgra)
            for (x, y) in [(160, 120), (479, 359), (320, 240), (200, 300)] {
                #expect(Self.isRed(frame.bgra(x: x, y: y)), "(\(x), \(y)) is \(frame.bgra(x: x, y: y))")
            }
            for (x, y) in [(0, 0), (159, 120), (480, 359), (639, 479), (320, 119)] {
                #expect(Self.isBlack(frame.bgra(x: x, y: y)), "(\(x), \(y)) is \(frame.bgra(x: x, y: y))")
            }
        }

        // A region: its top-left corner (150, 110) is black, (160, 120) inside it at (10, 10) is red.
        for useSharedMemory in [true, false] {
            let region = try X11ScreenSource(options: .init(
                display: xvfb.display, region: ScreenRegion(x: 150, y: 110, width: 100, height: 60),
                useSharedMemory: useSharedMemory, drawsCursor: false))
            let frame = try #require(try region.grab(pts: 0))
            #expect((frame.width, frame.height) == (100, 60))
            #expect(Self.isBlack(frame.bgra(x: 5, y: 5)))
            #expect(Self.isBlack(frame.bgra(x: 99, y: 9)))
            #expect(Self.isRed(frame.bgra(x: 10, y: 10)))
            #expect(Self.isRed(frame.bgra(x: 99, y: 59)))
        }

        // The pointer (XFixes) sits at the screen centre: with it drawn, pixels around it are no longer red.
        let withCursor = try X11ScreenSource(options: .init(display: xvfb.display))
        #expect(withCursor.drawsCursor)
        let cursorFrame = try #require(try withCursor.grab(pts: 0))
        let plainFrame = try #require(try shared.grab(pts: 0))
        let around = (300...340).flatMap { x in (220...260).map { (x, $0) } }
        let changed = around.filter { !Self.isRed(cursorFrame.bgra(x: $0.0, y: $0.1)) }
        #expect(changed.count > 10, "the pointer changed \(changed.count) pixels around the centre")
        #expect(around.allSatisfy { Self.isRed(plainFrame.bgra(x: $0.0, y: $0.1)) })

        // A pool of one: while its frame is held, the next grab is dropped.
        let single = try X11ScreenSource(options: .init(display: xvfb.display, drawsCursor: false, poolSize: 1))
        let held = try single.grab(pts: 0)
        #expect(held != nil)
        #expect(try single.grab(pts: 1) == nil)
        #expect(single.poolStatistics.exhaustions == 1)
    }

    @Test func regionOutsideTheScreenIsRefused() throws {
        let xvfb = try Xvfb(width: 320, height: 240)
        defer { xvfb.stop() }
        let error = #expect(throws: CaptureError.self) {
            try X11ScreenSource(options: .init(display: xvfb.display,
                                               region: ScreenRegion(x: 300, y: 0, width: 100, height: 100)))
        }
        #expect(error?.message.contains("does not fit the 320x240 screen") == true)
    }

    @Test func missingDisplayHasAClearError() {
        let error = #expect(throws: CaptureError.self) {
            try X11ScreenSource(options: .init(display: ":9"), environment: [:])
        }
        #expect(error?.message == "cannot open X display ':9': is an X server running? Wayland sessions need "
                    + "XWayland; the desktop portal is not supported")
        let unset = #expect(throws: CaptureError.self) { try X11ScreenSource(environment: [:]) }
        #expect(unset?.message.contains("DISPLAY is not set") == true)
    }

    @Test(arguments: [
        ("1280x720+0+0", ScreenRegion(x: 0, y: 0, width: 1280, height: 720)),
        ("640x360+10+20", ScreenRegion(x: 10, y: 20, width: 640, height: 360)),
        ("800x600", ScreenRegion(x: 0, y: 0, width: 800, height: 600)),
    ])
    func geometryParses(text: String, region: ScreenRegion) {
        #expect(ScreenRegion(geometry: text) == region)
        #expect(ScreenRegion(geometry: region.description) == region)
    }

    @Test(arguments: ["", "x", "0x10", "10x", "10x10+1", "10x10+-1+0", "axb+0+0"])
    func badGeometryIsRejected(text: String) {
        #expect(ScreenRegion(geometry: text) == nil)
    }
}
