import AVFoundation
import AppLogic
import RealtimeCalls
import SwiftUI

/// The go-live screen: the camera preview, camera and microphone switches, go live and end. The buttons follow
/// `GoLiveScreenState` (AppLogic); the calls are the show's (RealtimeCalls).
struct GoLiveScreen: View {
    @State var live: LiveShowModel
    let media: CameraLiveMedia
    @State private var phase = GoLiveScreenState.Phase.idle
    @State private var camera = false
    @State private var microphone = false

    var body: some View {
        let screen = GoLiveScreenState(role: live.model.you?.role, state: live.model.state, media: live.model.media,
                                       phase: phase, camera: Self.authorization(.video),
                                       microphone: Self.authorization(.audio))
        VStack(spacing: 12) {
            LiveStreamVideo(show: live.show, preview: media.session)
                .aspectRatio(9 / 16, contentMode: .fit)
            Text(screen.status)
            if let hint = screen.permissionHint { Text(hint).font(.footnote).foregroundStyle(.orange) }
            if let error = live.error { Text(error).font(.footnote).foregroundStyle(.red) }
            Toggle("Camera", isOn: $camera).disabled(!screen.canToggle)
                .onChange(of: camera) { _, on in run { try await live.show.setCamera(on) } }
            Toggle("Microphone", isOn: $microphone).disabled(!screen.canToggle)
                .onChange(of: microphone) { _, on in run { try await live.show.setMicrophone(on) } }
            HStack {
                Button("Preview") {
                    run {
                        try await live.show.preview()
                        phase = .previewing
                    }
                }
                .disabled(!screen.canPreview)
                Button("Go live") {
                    phase = .goingLive
                    run(failing: .idle) {
                        try await live.show.goLive()
                        phase = .live
                    }
                }
                .disabled(!screen.canGoLive)
                Button("End", role: .destructive) {
                    phase = .ending
                    run(failing: .live) {
                        try await live.show.end()
                        phase = .idle
                    }
                }
                .disabled(!screen.canEnd)
            }
        }
        .padding()
        .onChange(of: phase) {
            camera = media.isCameraOn
            microphone = media.isMicrophoneOn
        }
    }

    private func run(failing: GoLiveScreenState.Phase? = nil,
                     _ body: @escaping @MainActor () async throws(LiveStreamError) -> Void) {
        Task { @MainActor in
            do throws(LiveStreamError) {
                try await body()
                live.error = nil
            } catch {
                live.error = WatchScreenState.text(for: error)
                if let failing { phase = failing }
            }
        }
    }

    private static func authorization(_ type: AVMediaType) -> CameraAuthorization {
        switch AVCaptureDevice.authorizationStatus(for: type) {
        case .notDetermined: .notDetermined
        case .restricted: .restricted
        case .denied: .denied
        case .authorized: .authorized
        @unknown default: .denied
        }
    }
}
