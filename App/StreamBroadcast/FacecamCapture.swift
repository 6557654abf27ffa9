import AVFoundation
import AppLogic
import Synchronization

/// The facecam inside the extension: an `AVCaptureSession` that only keeps the latest camera frame.
///
/// It runs only when `FacecamPlan` says so (PiP on, permission granted, multitasking camera access supported),
/// with `isMultitaskingCameraAccessEnabled = true`. When the session is interrupted (for example
/// `videoDeviceNotAvailableWithMultipleForegroundApps`) or frames stop, `latestFrame` returns nil and the broadcast
/// shows the screen alone.
final class FacecamCapture: NSObject, AVCaptureVideoDataOutputSampleBufferDelegate, @unchecked Sendable {
    // @unchecked Sendable: `session` and `output` are configured once in `init` and only started/stopped after;
    // AVCaptureSession is documented as thread-safe for startRunning/stopRunning. Mutable state is in `state`.
    private let session = AVCaptureSession()
    private let output = AVCaptureVideoDataOutput()
    private let queue = DispatchQueue(label: "com.joeblau.Stream.facecam")
    private let state = Mutex(State())
    private var observers: [any NSObjectProtocol] = []

    private struct State {
        var latest: SendablePixelBuffer?
        var interrupted = false
    }

    /// A frame older than this is not composited (PiPConfiguration's one-second camera timeout).
    static let staleAfterSeconds = 1.0

    /// Opens the camera; nil when the device has no such camera or the session refuses it.
    /// - Parameter position: front or back, from `FacecamPlan`.
    init?(position: FacecamPlan.CameraSide) {
        super.init()
        #if targetEnvironment(simulator)
        return nil
        #else
        let devicePosition: AVCaptureDevice.Position = position == .front ? .front : .back
        guard let device = AVCaptureDevice.default(.builtInWideAngleCamera, for: .video, position: devicePosition),
              let input = try? AVCaptureDeviceInput(device: device) else { return nil }
        session.beginConfiguration()
        session.sessionPreset = .vga640x480   // MemoryBudget.cameraSize
        if session.isMultitaskingCameraAccessSupported {
            session.isMultitaskingCameraAccessEnabled = true
        }
        output.alwaysDiscardsLateVideoFrames = true
        output.videoSettings = [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarFullRange,
        ]
        output.setSampleBufferDelegate(self, queue: queue)
        guard session.canAddInput(input), session.canAddOutput(output) else {
            session.commitConfiguration()
            return nil
        }
        session.addInput(input)
        session.addOutput(output)
        session.commitConfiguration()
        observe()
        #endif
    }

    deinit {
        for observer in observers {
            NotificationCenter.default.removeObserver(observer)
        }
    }

    func start() {
        queue.async { [self] in session.startRunning() }
    }

    func stop() {
        queue.async { [self] in session.stopRunning() }
        state.withLock { $0.latest = nil }
    }

    /// The latest camera frame, or nil when interrupted or stale.
    /// - Parameter now: the screen frame's time in host-clock seconds.
    func latestFrame(now: Double) -> SendablePixelBuffer? {
        state.withLock { state in
            guard !state.interrupted, let latest = state.latest, now - latest.seconds < Self.staleAfterSeconds
            else { return nil }
            return latest
        }
    }

    func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer,
                       from connection: AVCaptureConnection) {
        guard let pixels = CMSampleBufferGetImageBuffer(sampleBuffer) else { return }
        let frame = SendablePixelBuffer(buffer: pixels,
                                        seconds: CMSampleBufferGetPresentationTimeStamp(sampleBuffer).seconds)
        // Only the latest frame is kept: the previous one is released here.
        state.withLock { $0.latest = frame }
    }

    private func observe() {
        let center = NotificationCenter.default
        let set: @Sendable (Bool) -> Void = { [weak self] interrupted in
            self?.state.withLock { value in
                value.interrupted = interrupted
                if interrupted { value.latest = nil }
            }
        }
        observers = [
            center.addObserver(forName: AVCaptureSession.wasInterruptedNotification, object: session, queue: nil) {
                _ in set(true)
            },
            center.addObserver(forName: AVCaptureSession.interruptionEndedNotification, object: session,
                               queue: nil) { _ in set(false) },
            center.addObserver(forName: AVCaptureSession.runtimeErrorNotification, object: session, queue: nil) {
                _ in set(true)
            },
        ]
    }
}
