import AppLogic
import CoreImage
import CoreVideo
import ImageIO
import Metal
import StreamCore

/// Renders each screen frame at the locked encode size, upright in the locked orientation, with the facecam on top
/// when there is a camera frame. One Metal-backed `CIContext` and one `CVPixelBufferPool` are made per broadcast;
/// nothing is allocated per frame beyond Core Image's lightweight image recipes.
final class FrameCompositor {
    let lock: EncodeSizeLock
    private let settings: StreamSettings
    private let screenScale: Double
    private let context: CIContext
    private let pool: CVPixelBufferPool
    private let poolLimit: CFDictionary

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
        var image = fit(CIImage(cvPixelBuffer: screen)
            .oriented(CGImagePropertyOrientation(rawValue: lock.orientation.rawValue) ?? .up),
                        width: Double(size.width), height: Double(size.height))
        if let camera {
            let overlay = FacecamOverlay(frame: size, cameraWidth: CVPixelBufferGetWidth(camera),
                                         cameraHeight: CVPixelBufferGetHeight(camera), settings: settings,
                                         displayScale: lock.displayScale(screenScale: screenScale))
            image = composite(camera: camera, overlay: overlay, over: image)
        }
        context.render(image, to: output, bounds: CGRect(x: 0, y: 0, width: size.width, height: size.height),
                       colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        return output
    }

    /// Scales an image so its extent fills `width` × `height` at the origin.
    private func fit(_ image: CIImage, width: Double, height: Double) -> CIImage {
        let extent = image.extent
        return image
            .transformed(by: CGAffineTransform(translationX: -extent.minX, y: -extent.minY))
            .transformed(by: CGAffineTransform(scaleX: width / extent.width, y: height / extent.height))
    }

    private func composite(camera: CVPixelBuffer, overlay: FacecamOverlay, over background: CIImage) -> CIImage {
        var picture = fit(CIImage(cvPixelBuffer: camera), width: Double(overlay.width), height: Double(overlay.height))
        if overlay.mirrored {
            picture = picture.transformed(by: CGAffineTransform(scaleX: -1, y: 1)
                .translatedBy(x: -Double(overlay.width), y: 0))
        }
        picture = picture.transformed(by: CGAffineTransform(translationX: Double(overlay.x), y: Double(overlay.y)))
        let rect = CGRect(x: overlay.x, y: overlay.y, width: overlay.width, height: overlay.height)
        let mask = CIFilter(name: "CIRoundedRectangleGenerator", parameters: [
            "inputExtent": CIVector(cgRect: rect),
            "inputRadius": overlay.cornerRadius,
            "inputColor": CIColor.white,
        ])?.outputImage
        guard let mask else { return picture.composited(over: background) }
        return picture.applyingFilter("CIBlendWithMask", parameters: [
            kCIInputBackgroundImageKey: background,
            kCIInputMaskImageKey: mask,
        ])
    }
}
