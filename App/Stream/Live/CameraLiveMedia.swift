import AVFoundation
import AppLogic
import LiveProtocol
import os
import RealtimeCalls
import StreamCore

/// The iPhone's camera and microphone as a show's ``LiveMedia``: an `AVCaptureSession` for the preview, and on
/// `publish` a ``CameraPublisher`` that encodes what it captures (VideoToolbox, AudioToolbox) into the engine's
/// RTMP output to where the server's grant says. Every decision (which buttons, when to go live) is in AppLogic and
/// RealtimeCalls; this file only wires AVFoundation.
final class CameraLiveMedia: NSObject, LiveMedia, @unchecked Sendable {
    // @unchecked Sendable: `session` is configured and started only on `queue`; `state` is a lock.
    private struct State {
        var camera = false
        var microphone = false
        var publisher: CameraPublisher?
    }

    /// The capture session the preview layer shows.
    let session = AVCaptureSession()
    private let queue = DispatchQueue(label: "com.joeblau.Stream.camera")
    private let state = OSAllocatedUnfairLock(initialState: State())
    private let videoOutput = AVCaptureVideoDataOutput()
    private let audioOutput = AVCaptureAudioDataOutput()
    private var configured = false

    var isCameraOn: Bool { state.withLock { $0.camera } }
    var isMicrophoneOn: Bool { state.withLock { $0.microphone } }
    var tiles: [TileKind] { [.camera] }

    func preview() async throws(LiveStreamError) {
        try await setCamera(true)
        try await setMicrophone(true)
    }

    func setCamera(_ on: Bool) async throws(LiveStreamError) {
        if on { try await requestAccess(for: .video) }
        state.withLock { $0.camera = on }
        try await reconfigure()
    }

    func setMicrophone(_ on: Bool) async throws(LiveStreamError) {
        if on { try await requestAccess(for: .audio) }
        state.withLock { $0.microphone = on }
        try await reconfigure()
    }

    func publish(_ grants: [PublishGrant]) async throws(LiveStreamError) {
        guard let grant = grants.first(where: { $0.tile == .camera }) else {
            throw .media("the server gave no grant for the camera")
        }
        let publisher: CameraPublisher
        do {
            publisher = try CameraPublisher(grant: grant, settings: SettingsStore.appGroup().load().settings)
        } catch {
            throw .media("\(error)")
        }
        let old = state.withLock { state -> CameraPublisher? in
            defer { state.publisher = publisher }
            return state.publisher
        }
        old?.stop()
    }

    func stop() async {
        state.withLock { state -> CameraPublisher? in
            defer { state.publisher = nil }
            return state.publisher
        }?.stop()
        queue.async { [self] in session.stopRunning() }
    }

    private func requestAccess(for type: AVMediaType) async throws(LiveStreamError) {
        guard await AVCaptureDevice.requestAccess(for: type) else {
            throw .media("access to the \(type == .video ? "camera" : "microphone") was denied")
        }
    }

    /// Adds or removes the inputs for the switches and runs the session while either is on, as `CaptureInputPlan`
    /// decides.
    private func reconfigure() async throws(LiveStreamError) {
        let (camera, microphone) = state.withLock { ($0.camera, $0.microphone) }
        let failure: String? = await withCheckedContinuation { continuation in
            queue.async { [self] in
                session.beginConfiguration()
                if !configured {
                    session.sessionPreset = .hd1280x720
                    videoOutput.setSampleBufferDelegate(self, queue: queue)
                    audioOutput.setSampleBufferDelegate(self, queue: queue)
                    if session.canAddOutput(videoOutput) { session.addOutput(videoOutput) }
                    if session.canAddOutput(audioOutput) { session.addOutput(audioOutput) }
                    configured = true
                }
                let inputs = session.inputs.compactMap { $0 as? AVCaptureDeviceInput }
                func mediaType(_ kind: CaptureInputPlan.Input) -> AVMediaType { kind == .video ? .video : .audio }
                let present = Set(CaptureInputPlan.Input.allCases.filter { kind in
                    inputs.contains { $0.device.hasMediaType(mediaType(kind)) }
                })
                let plan = CaptureInputPlan(camera: camera, microphone: microphone, present: present)
                for kind in plan.remove {
                    inputs.filter { $0.device.hasMediaType(mediaType(kind)) }.forEach(session.removeInput)
                }
                var failure: String?
                for kind in plan.add {
                    let device = kind == .video
                        ? AVCaptureDevice.default(.builtInWideAngleCamera, for: .video, position: .front)
                        : AVCaptureDevice.default(for: .audio)
                    guard let device, let input = try? AVCaptureDeviceInput(device: device),
                          session.canAddInput(input) else {
                        failure = "no usable \(kind == .video ? "camera" : "microphone")"
                        continue
                    }
                    session.addInput(input)
                }
                session.commitConfiguration()
                if plan.run != session.isRunning {
                    if plan.run { session.startRunning() } else { session.stopRunning() }
                }
                continuation.resume(returning: failure)
            }
        }
        if let failure { throw .media(failure) }
    }
}

extension CameraLiveMedia: AVCaptureVideoDataOutputSampleBufferDelegate, AVCaptureAudioDataOutputSampleBufferDelegate {
    func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer,
                       from connection: AVCaptureConnection) {
        guard let publisher = state.withLock({ $0.publisher }) else { return }
        publisher.handle(sampleBuffer, isVideo: output === videoOutput)
    }
}
