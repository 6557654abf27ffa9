import AppLogic
import CoreImage
import CoreImage.CIFilterBuiltins
import CoreVideo
import ImageIO
import Metal
import StreamCore

/// Renders each screen frame at the locked encode size, upright in the locked orientation, with the facecam on top
/// when there is a camera frame. One Metal-backed `CIContext`, one `CVPixelBufferPool`, one colour space and one
/// mask filter are made per broadcast, and the rounded mask once per overlay rectangle; nothing is allocated per
/// frame beyond Core Image's lightweight image recipes. Used from one thread (a `CIFilter` is mutable).
final class FrameCompositor {
    let lock: EncodeSizeLock
    private let settings: StreamSettings
    private let screenScale: Double
    private let context: CIContext
    private let pool: CVPixelBufferPool
    private let poolLimit: CFDictionary
    private let colorSpace: CGColorSpace
    private let blend = CIFilter.blendWithMask()
    /// The rounded mask for the last overlay rectangle: the camera's size, hence the rectangle, rarely changes.
    private var mask: (overlay: FacecamOverlay, image: CIImage)?

    /// - Parameters:
    ///   - lock: the locked size and orientation.
    ///   - settings: corner, scale and camera for `FacecamOverlay`.
    ///   - screenScale: the screen's pixels per point (for the 24 pt inset).
    init?(lock: EncodeSizeLock, settings: StreamSettings, screenScale: Double) {
        guard let device = MTLCreateSystemDefaultDevice() else { return nil }
        self.lock = lock
        self.settings = settings
        self.screenScale = screenScale
        context = CIContext(mtlDevice: device, options: [.cacheIntermediates: false, .name: "Stream compositor"])
        guard let colorSpace = CGColorSpace(name: CGColorSpace.sRGB) else { return nil }
        self.colorSpace = colorSpace
        let attributes: [String: Any] = [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarFullRange,
            kCVPixelBufferWidthKey as String: lock.size.width,
            kCVPixelBufferHeightKey as String: lock.size.height,
            kCVPixelBufferIOSurfacePropertiesKey as String: [String: Any](),
            kCVPixelBufferMetalCompatibilityKey as String: true,
        ]
        let poolAttributes: [String: Any] = [
            kCVPixelBufferPoolMinimumBufferCountKey as String: MemoryBudget.compositorPoolBuffers,
        ]
        var made: CVPixelBufferPool?
        guard CVPixelBufferPoolCreate(nil, poolAttributes as CFDictionary, attributes as CFDictionary, &made)
                == kCVReturnSuccess, let made else { return nil }
        pool = made
        poolLimit = [kCVPixelBufferPoolAllocationThresholdKey as String: MemoryBudget.compositorPoolBuffers]
            as CFDictionary
    }

    /// Composites one frame.
    /// - Parameters:
    ///   - screen: ReplayKit's frame.
    ///   - camera: the latest camera frame, or nil for the screen alone.
    /// - Returns: a pooled buffer at the encode size, or nil when the pool is exhausted (the frame is skipped).
    func render(screen: CVPixelBuffer, camera: CVPixelBuffer?) -> CVPixelBuffer? {
        var output: CVPixelBuffer?
        let status = CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(nil, pool, poolLimit, &output)
        guard status == kCVReturnSuccess, let output else { return nil }

        let size = lock.size
        let upright = CIImage(cvPixelBuffer: screen)
            .oriented(CGImagePropertyOrientation(rawValue: lock.orientation.rawValue) ?? .up)
        let extent = upright.extent
        var image = upright.transformed(by: CGAffineTransform(ImageTransform.fit(
            extentX: extent.minX, extentY: extent.minY, extentWidth: extent.width, extentHeight: extent.height,
            width: Double(size.width), height: Double(size.height))))
        if let camera {
            let overlay = FacecamOverlay(frame: size, cameraWidth: CVPixelBufferGetWidth(camera),
                                         cameraHeight: CVPixelBufferGetHeight(camera), settings: settings,
                                         displayScale: lock.displayScale(screenScale: screenScale))
            image = composite(camera: camera, overlay: overlay, over: image)
        }
        context.render(image, to: output, bounds: CGRect(x: 0, y: 0, width: size.width, height: size.height),
                       colorSpace: colorSpace)
        // The reused filter would otherwise hold this frame's screen and camera buffers until the next frame, and
        // ReplayKit's surfaces count against the extension's memory.
        blend.inputImage = nil
        blend.backgroundImage = nil
        return output
    }

    private func composite(camera: CVPixelBuffer, overlay: FacecamOverlay, over background: CIImage) -> CIImage {
        let image = CIImage(cvPixelBuffer: camera)
        let extent = image.extent
        let picture = image.transformed(by: CGAffineTransform(overlay.cameraTransform(
            extentX: extent.minX, extentY: extent.minY, extentWidth: extent.width, extentHeight: extent.height)))
        guard let mask = roundedMask(overlay) else { return picture.composited(over: background) }
        blend.inputImage = picture
        blend.backgroundImage = background
        blend.maskImage = mask
        return blend.outputImage ?? picture.composited(over: background)
    }

    /// The white rounded rectangle the camera picture is cut to, made again only when the rectangle changes.
    private func roundedMask(_ overlay: FacecamOverlay) -> CIImage? {
        if let mask, mask.overlay == overlay { return mask.image }
        let generator = CIFilter.roundedRectangleGenerator()
        generator.extent = CGRect(x: overlay.x, y: overlay.y, width: overlay.width, height: overlay.height)
        generator.radius = Float(overlay.cornerRadius)
        generator.color = CIColor.white
        guard let image = generator.outputImage else { return nil }
        mask = (overlay, image)
        return image
    }
}

private extension CGAffineTransform {
    /// The same six terms: AppLogic's `ImageTransform` uses Core Graphics' conventions.
    init(_ transform: ImageTransform) {
        self.init(a: transform.a, b: transform.b, c: transform.c, d: transform.d, tx: transform.tx, ty: transform.ty)
    }
}
