#if canImport(CXCB)
import CXCB
import CYUV
#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Media

/// Captures the X11 root window (or a region of it) into pooled BGRA frames through libxcb.
///
/// Uses MIT-SHM (the server writes straight into shared memory) when the server offers it, else plain `GetImage`.
/// The pointer is drawn in when the server has XFixes. Frame pacing is the caller's job: call ``grab(pts:)`` at
/// the session's frame rate. Not thread-safe: the connection belongs to one thread or actor.
public final class X11ScreenSource {
    /// How to open the display and what to capture.
    public struct Options: Sendable, Hashable {
        /// The display name (e.g. `:0`); nil uses `$DISPLAY`.
        public var display: String?
        /// The part of the screen to capture; nil for all of it.
        public var region: ScreenRegion?
        /// Whether to use MIT-SHM when available (false forces the slower `GetImage` path).
        public var useSharedMemory: Bool
        /// Whether to draw the pointer into the frames (needs XFixes).
        public var drawsCursor: Bool
        /// How many frames may be alive downstream at once.
        public var poolSize: Int

        /// Describes a capture; the defaults grab the whole `$DISPLAY` screen with the pointer through MIT-SHM.
        public init(display: String? = nil, region: ScreenRegion? = nil, useSharedMemory: Bool = true,
                    drawsCursor: Bool = true, poolSize: Int = 4) {
            self.display = display
            self.region = region
            self.useSharedMemory = useSharedMemory
            self.drawsCursor = drawsCursor
            self.poolSize = poolSize
        }
    }

    /// The display that was opened.
    public let displayName: String
    /// The root window's width in pixels.
    public let screenWidth: Int
    /// The root window's height in pixels.
    public let screenHeight: Int
    /// The captured rectangle (the whole screen unless a region was asked for).
    public let region: ScreenRegion
    /// Whether frames come through MIT-SHM (false: `GetImage`).
    public var usesSharedMemory: Bool { sharedMemory != nil }
    /// Whether the pointer is drawn into the frames.
    public let drawsCursor: Bool

    private let connection: OpaquePointer
    private let root: xcb_window_t
    private let pool: FramePool
    private var sharedMemory: SharedMemorySegment?
    private let opaqueAlphaRow: [UInt8]

    /// Connects to the X server and prepares the grab.
    /// - Parameters:
    ///   - options: display, region and paths.
    ///   - environment: where `DISPLAY` is looked up when `options.display` is nil.
    /// - Throws: ``CaptureError`` when no display can be opened, its pixels are not 32-bit, or the region does not
    ///   fit the screen.
    public init(options: Options = Options(),
                environment: [String: String] = ProcessInfo.processInfo.environment) throws(CaptureError) {
        guard let name = options.display ?? environment["DISPLAY"], !name.isEmpty else {
            throw CaptureError.cannotOpenDisplay("")
        }
        displayName = name
        var screenNumber: Int32 = 0
        guard let connection = xcb_connect(name, &screenNumber) else { throw CaptureError.cannotOpenDisplay(name) }
        guard xcb_connection_has_error(connection) == 0 else {
            xcb_disconnect(connection)
            throw CaptureError.cannotOpenDisplay(name)
        }
        self.connection = connection
        let setup = xcb_get_setup(connection)
        var screens = xcb_setup_roots_iterator(setup)
        for _ in 0..<max(0, screenNumber) where screens.rem > 0 { xcb_screen_next(&screens) }
        guard screens.rem > 0, let screen = screens.data?.pointee else {
            xcb_disconnect(connection)
            throw CaptureError.screen("X display '\(name)' has no screen \(screenNumber)")
        }
        guard Self.hasThirtyTwoBitPixels(setup: setup, depth: screen.root_depth) else {
            xcb_disconnect(connection)
            throw CaptureError.screen("X display '\(name)' uses \(screen.root_depth)-bit colour; only 24- and "
                                          + "32-bit depths (32 bits per pixel, little-endian) can be captured")
        }
        root = screen.root
        screenWidth = Int(screen.width_in_pixels)
        screenHeight = Int(screen.height_in_pixels)
        let region = options.region ?? ScreenRegion(x: 0, y: 0, width: screenWidth, height: screenHeight)
        guard region.fits(screenWidth: screenWidth, screenHeight: screenHeight) else {
            xcb_disconnect(connection)
            throw CaptureError.screen("capture region \(region) does not fit the \(screenWidth)x\(screenHeight) "
                                          + "screen of X display '\(name)'")
        }
        self.region = region
        pool = FramePool(format: .bgra, width: region.width, height: region.height, maxCount: max(1, options.poolSize))
        opaqueAlphaRow = [UInt8](repeating: 255, count: region.width)
        drawsCursor = options.drawsCursor && Self.enableXFixes(connection)
        if options.useSharedMemory {
            sharedMemory = SharedMemorySegment(connection: connection, byteCount: region.width * region.height * 4)
        }
    }

    deinit {
        if let sharedMemory { sharedMemory.release(connection: connection) }
        xcb_disconnect(connection)
    }

    /// Width of the frames in pixels.
    public var width: Int { region.width }
    /// Height of the frames in pixels.
    public var height: Int { region.height }
    /// Pool counters (allocations, reuse, exhaustions).
    public var poolStatistics: PoolStatistics { pool.statistics }

    /// Grabs the region into a pooled BGRA frame (opaque alpha), with the pointer drawn in.
    /// - Parameter pts: the frame's timestamp, in nanoseconds on a monotonic clock.
    /// - Returns: the frame, or nil when every pooled frame is still in use downstream (drop this tick).
    /// - Throws: ``CaptureError`` when the X server refuses the grab or the connection broke.
    public func grab(pts: Int64) throws(CaptureError) -> VideoFrame? {
        guard var frame = pool.makeFrame(pts: pts) else { return nil }
        let cursorCookie = drawsCursor ? xcb_xfixes_get_cursor_image(connection) : nil
        if let sharedMemory {
            let cookie = xcb_shm_get_image(connection, root, Int16(region.x), Int16(region.y), UInt16(region.width),
                                           UInt16(region.height), ~0, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue),
                                           sharedMemory.segment, 0)
            var error: UnsafeMutablePointer<xcb_generic_error_t>?
            let reply = xcb_shm_get_image_reply(connection, cookie, &error)
            defer { free(reply); free(error) }
            guard reply != nil else { throw failure("MIT-SHM GetImage", error) }
            copyPixels(from: UnsafeRawPointer(sharedMemory.address), into: &frame)
        } else {
            let cookie = xcb_get_image(connection, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), root, Int16(region.x),
                                       Int16(region.y), UInt16(region.width), UInt16(region.height), ~0)
            var error: UnsafeMutablePointer<xcb_generic_error_t>?
            guard let reply = xcb_get_image_reply(connection, cookie, &error) else {
                defer { free(error) }
                throw failure("GetImage", error)
            }
            defer { free(reply) }
            let length = Int(xcb_get_image_data_length(reply))
            guard length >= region.width * region.height * 4, let data = xcb_get_image_data(reply) else {
                throw CaptureError.screen("X server sent a \(length)-byte image for a \(region) grab")
            }
            copyPixels(from: UnsafeRawPointer(data), into: &frame)
        }
        if let cursorCookie { drawCursor(cursorCookie, into: &frame) }
        return frame
    }

    /// Copies packed 32-bit rows into the frame's padded rows and makes alpha opaque (depth-24 X pixels leave the
    /// top byte undefined).
    private func copyPixels(from source: UnsafeRawPointer, into frame: inout VideoFrame) {
        let width = Int32(region.width)
        let height = Int32(region.height)
        opaqueAlphaRow.withUnsafeBufferPointer { alpha in
            frame.withUnsafeMutablePlanes { planes in
                let destination = planes.baseAddress(ofPlane: 0)
                let stride = Int32(planes.stride(ofPlane: 0))
                _ = ARGBCopy(source.assumingMemoryBound(to: UInt8.self), width * 4, destination, stride, width, height)
                // A source stride of 0 repeats the one row of 255s for every row.
                _ = ARGBCopyYToAlpha(alpha.baseAddress, 0, destination, stride, width, height)
            }
        }
    }

    private func drawCursor(_ cookie: xcb_xfixes_get_cursor_image_cookie_t, into frame: inout VideoFrame) {
        guard let reply = xcb_xfixes_get_cursor_image_reply(connection, cookie, nil) else { return }
        defer { free(reply) }
        let image = reply.pointee
        guard let pixels = xcb_xfixes_get_cursor_image_cursor_image(reply) else { return }
        let count = Int(image.width) * Int(image.height)
        guard Int(xcb_xfixes_get_cursor_image_cursor_image_length(reply)) >= count else { return }
        CursorOverlay.draw(UnsafeBufferPointer(start: pixels, count: count), width: Int(image.width),
                           height: Int(image.height),
                           x: Int(image.x) - Int(image.xhot) - region.x, y: Int(image.y) - Int(image.yhot) - region.y,
                           into: &frame)
    }

    private func failure(_ request: String, _ error: UnsafeMutablePointer<xcb_generic_error_t>?) -> CaptureError {
        if xcb_connection_has_error(connection) != 0 {
            return CaptureError.screen("the connection to X display '\(displayName)' broke; was the X server stopped?")
        }
        let code = error.map { String($0.pointee.error_code) } ?? "unknown"
        return CaptureError.screen("X server refused \(request) of \(region) on '\(displayName)' (X error \(code))")
    }

    private static func hasThirtyTwoBitPixels(setup: UnsafePointer<xcb_setup_t>?, depth: UInt8) -> Bool {
        guard let setup, setup.pointee.image_byte_order == UInt8(XCB_IMAGE_ORDER_LSB_FIRST.rawValue),
              let formats = xcb_setup_pixmap_formats(setup)
        else { return false }
        let count = Int(xcb_setup_pixmap_formats_length(setup))
        return (0..<count).contains { formats[$0].depth == depth && formats[$0].bits_per_pixel == 32 }
            && (depth == 24 || depth == 32)
    }

    /// XFixes answers cursor requests only after the client announced its version.
    private static func enableXFixes(_ connection: OpaquePointer) -> Bool {
        guard let extensionData = xcb_get_extension_data(connection, stream_xcb_xfixes_id()),
              extensionData.pointee.present != 0
        else { return false }
        let reply = xcb_xfixes_query_version_reply(connection, xcb_xfixes_query_version(connection, 4, 0), nil)
        defer { free(reply) }
        return reply != nil
    }
}

/// A System V shared-memory segment attached to both us and the X server (MIT-SHM).
private struct SharedMemorySegment {
    let segment: xcb_shm_seg_t
    let address: UnsafeMutableRawPointer

    /// Creates and attaches a segment, or nil when the server has no MIT-SHM or cannot attach it (a remote server).
    init?(connection: OpaquePointer, byteCount: Int) {
        guard let extensionData = xcb_get_extension_data(connection, stream_xcb_shm_id()),
              extensionData.pointee.present != 0
        else { return nil }
        let version = xcb_shm_query_version_reply(connection, xcb_shm_query_version(connection), nil)
        guard version != nil else { return nil }
        free(version)
        let identifier = shmget(IPC_PRIVATE, byteCount, IPC_CREAT | 0o600)
        guard identifier >= 0 else { return nil }
        // Marked for removal at once: the kernel frees it when both processes detach, even if we crash.
        defer { shmctl(identifier, IPC_RMID, nil) }
        guard let address = shmat(identifier, nil, 0), address != UnsafeMutableRawPointer(bitPattern: -1) else {
            return nil
        }
        let segment = xcb_generate_id(connection)
        let error = xcb_request_check(connection, xcb_shm_attach_checked(connection, segment, UInt32(identifier), 0))
        guard error == nil else {
            free(error)
            shmdt(address)
            return nil
        }
        self.segment = segment
        self.address = address
    }

    func release(connection: OpaquePointer) {
        xcb_shm_detach(connection, segment)
        xcb_flush(connection)
        shmdt(address)
    }
}
#endif
