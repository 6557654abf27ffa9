#if canImport(CYUV)
/// Draws the facecam picture-in-picture into I420 screen frames at the encode size, before encoding.
///
/// The camera side puts frames into ``cameraSlot`` (only the latest is kept). Each camera frame is turned once into
/// an I420 picture at the PiP size (converted, scaled and, for the front camera, mirrored by libyuv); each screen
/// frame then gets that picture copied in with one `memcpy` per row and plane, clipped to the rounded corners by a
/// per-row span computed once per geometry. The hot path allocates nothing.
///
/// - PiP off: the screen frame is returned as is (same storage, no copy).
/// - No camera frame yet, or none for longer than the timeout: the screen frame is returned as is ("screen only"),
///   and compositing resumes with the next camera frame.
/// - The screen frame is drawn into in place; pass it with `consume` so it is uniquely referenced, otherwise it is
///   first copied into a frame from a small internal pool (counted in ``Statistics/copied``).
///
/// Not thread-safe: use from the video pipeline's one thread or actor (the slot is the thread-safe part).
public final class PiPCompositor {
    /// Counters of what the compositor did with each screen frame.
    public struct Statistics: Sendable, Hashable {
        /// Frames with the picture drawn in.
        public var composited = 0
        /// Frames returned untouched because PiP is off.
        public var passedThrough = 0
        /// Frames returned untouched because there was no fresh camera picture.
        public var screenOnly = 0
        /// Times the camera went silent for longer than the timeout while the picture was showing.
        public var cameraTimeouts = 0
        /// Camera frames turned into a picture.
        public var cameraFramesUsed = 0
        /// Shared screen frames copied before drawing.
        public var copied = 0
        /// Frames left untouched because they were not I420, the copy pool was exhausted, or libyuv failed.
        public var skipped = 0
        /// Internal working buffers allocated (the picture and scratch frames); grows only when the geometry or the
        /// camera's format changes, never per frame.
        public var bufferAllocations = 0
    }

    /// What to draw and where. Changing the size, camera or corner radius takes effect with the next camera frame.
    public var configuration: PiPConfiguration
    /// Where the camera delivers frames (from any thread).
    public let cameraSlot: LatestFrameSlot
    /// Counters.
    public private(set) var statistics = Statistics()
    /// The picture's rectangle in the last composited frame, nil before the first.
    public private(set) var lastRect: PiPRect?
    /// The last libyuv failure, if any (the frame it hit was left untouched).
    public private(set) var lastError: MediaError?

    /// The camera picture, ready to copy: I420 at the PiP size, mirrored if needed.
    private var picture: VideoFrame?
    /// What `picture` was made for; a different geometry waits for the next camera frame.
    private var pictureKey: PictureKey?
    private var mask: RoundedMask?
    private var cameraSize: (width: Int, height: Int)?
    private var lastCameraPTS: Int64?
    private var isShowing = false
    /// Camera frames at camera size in I420 (for NV12/BGRA cameras) and the unmirrored scaled picture.
    private var cameraScratch: VideoFrame?
    private var mirrorScratch: VideoFrame?
    private var copyPool: FramePool?

    private struct PictureKey: Equatable {
        var width: Int
        var height: Int
        var mirrored: Bool
    }

    /// Frames in the copy pool used when a shared screen frame must be copied before drawing.
    private static let copyPoolSize = 3

    /// Creates a compositor.
    /// - Parameters:
    ///   - configuration: the PiP settings.
    ///   - cameraSlot: the mailbox the camera writes to (a new one by default).
    public init(configuration: PiPConfiguration, cameraSlot: LatestFrameSlot = LatestFrameSlot()) {
        self.configuration = configuration
        self.cameraSlot = cameraSlot
    }

    /// Draws the latest camera picture into `screen` (I420 at the encode size) and returns it.
    /// - Parameter screen: the frame to draw into; its `pts` is compared with the camera's for the timeout.
    /// - Returns: the composited frame, or `screen` itself when nothing is drawn.
    public func composite(_ screen: consuming VideoFrame) -> VideoFrame {
        guard configuration.isEnabled else {
            statistics.passedThrough += 1
            return screen
        }
        if let camera = cameraSlot.take() {
            prepare(camera, frameWidth: screen.width, frameHeight: screen.height)
        }
        guard screen.format == .i420 else {
            statistics.skipped += 1
            return screen
        }
        guard let cameraSize, let lastCameraPTS else {
            statistics.screenOnly += 1
            return screen
        }
        if screen.pts &- lastCameraPTS > configuration.cameraTimeoutNanoseconds {
            if isShowing {
                statistics.cameraTimeouts += 1
                isShowing = false
            }
            statistics.screenOnly += 1
            return screen
        }
        let rect = PiPLayout.rect(frameWidth: screen.width, frameHeight: screen.height,
                                  cameraWidth: cameraSize.width, cameraHeight: cameraSize.height,
                                  corner: configuration.corner, scale: configuration.scale,
                                  insetPoints: configuration.insetPoints, displayScale: configuration.displayScale)
        let key = PictureKey(width: rect.width, height: rect.height, mirrored: configuration.camera.isMirrored)
        guard let picture, pictureKey == key else {
            statistics.screenOnly += 1
            return screen
        }
        var frame = consume screen
        if !frame.isUniquelyReferenced {
            guard let copy = copyOf(frame) else {
                statistics.skipped += 1
                return frame
            }
            frame = copy
            statistics.copied += 1
        }
        let mask = currentMask(width: rect.width, height: rect.height)
        frame.withUnsafeMutablePlanes { destination in
            picture.withUnsafePlanes { source in
                Self.blit(source, into: destination, at: rect, mask: mask)
            }
        }
        isShowing = true
        lastRect = rect
        statistics.composited += 1
        return frame
    }

    /// Copies the picture's rows into the frame, plane by plane, skipping the rounded-off corners.
    private static func blit(_ source: VideoPlanes, into destination: MutableVideoPlanes, at rect: PiPRect,
                             mask: RoundedMask) {
        mask.lumaInsets.withUnsafeBufferPointer { insets in
            copyRows(plane: 0, source: source, destination: destination, x: rect.x, y: rect.y,
                     width: rect.width, insets: insets)
        }
        mask.chromaInsets.withUnsafeBufferPointer { insets in
            for plane in 1...2 {
                copyRows(plane: plane, source: source, destination: destination, x: rect.x / 2, y: rect.y / 2,
                         width: rect.width / 2, insets: insets)
            }
        }
    }

    private static func copyRows(plane: Int, source: VideoPlanes, destination: MutableVideoPlanes, x: Int, y: Int,
                                 width: Int, insets: UnsafeBufferPointer<Int>) {
        let sourceBase = source.baseAddress(ofPlane: plane)
        let sourceStride = source.stride(ofPlane: plane)
        let destinationBase = destination.baseAddress(ofPlane: plane) + y * destination.stride(ofPlane: plane) + x
        let destinationStride = destination.stride(ofPlane: plane)
        for row in 0..<insets.count {
            let inset = insets[row]
            let count = width - 2 * inset
            guard count > 0 else { continue }
            (destinationBase + row * destinationStride + inset)
                .update(from: sourceBase + row * sourceStride + inset, count: count)
        }
    }

    /// Turns a camera frame into the I420 picture at the PiP size for a `frameWidth` × `frameHeight` screen.
    private func prepare(_ camera: VideoFrame, frameWidth: Int, frameHeight: Int) {
        statistics.cameraFramesUsed += 1
        lastCameraPTS = camera.pts
        cameraSize = (camera.width, camera.height)
        let rect = PiPLayout.rect(frameWidth: frameWidth, frameHeight: frameHeight,
                                  cameraWidth: camera.width, cameraHeight: camera.height,
                                  corner: configuration.corner, scale: configuration.scale,
                                  insetPoints: configuration.insetPoints, displayScale: configuration.displayScale)
        let key = PictureKey(width: rect.width, height: rect.height, mirrored: configuration.camera.isMirrored)
        let pictureLayout = FrameLayout(format: .i420, width: rect.width, height: rect.height)
        var output = reuse(picture.take(), layout: pictureLayout)
        pictureKey = nil
        do {
            var scratch: VideoFrame?
            if camera.format != .i420 {
                var converted = reuse(cameraScratch.take(),
                                           layout: FrameLayout(format: .i420, width: camera.width,
                                                               height: camera.height))
                try FrameConverter.convert(camera, into: &converted)
                scratch = consume converted
            }
            let source = scratch ?? camera
            if key.mirrored {
                var scaled = reuse(mirrorScratch.take(), layout: pictureLayout)
                try FrameConverter.convert(source, into: &scaled, filter: configuration.filter)
                try FrameConverter.mirror(scaled, into: &output)
                mirrorScratch = consume scaled
            } else {
                try FrameConverter.convert(source, into: &output, filter: configuration.filter)
            }
            cameraScratch = scratch
            picture = consume output
            pictureKey = key
        } catch {
            lastError = error
            statistics.skipped += 1
        }
    }

    private func currentMask(width: Int, height: Int) -> RoundedMask {
        if let mask, mask.width == width, mask.height == height,
           mask.radius == RoundedMask.radius(width: width, height: height,
                                             fraction: configuration.cornerRadiusFraction) {
            return mask
        }
        let mask = RoundedMask(width: width, height: height, radiusFraction: configuration.cornerRadiusFraction)
        self.mask = mask
        return mask
    }

    private func copyOf(_ frame: VideoFrame) -> VideoFrame? {
        if copyPool?.layout != frame.layout {
            copyPool = FramePool(layout: frame.layout, maxCount: Self.copyPoolSize)
        }
        guard var copy = copyPool?.makeFrame(pts: frame.pts) else { return nil }
        do {
            try FrameConverter.convert(frame, into: &copy)
        } catch {
            lastError = error
            return nil
        }
        return copy
    }

    /// `frame` if it has `layout`, else a new frame of that layout (only when the geometry changes).
    private func reuse(_ frame: VideoFrame?, layout: FrameLayout) -> VideoFrame {
        if let frame, frame.layout == layout {
            return frame
        }
        statistics.bufferAllocations += 1
        return VideoFrame(layout: layout)
    }
}
#endif
