import AppLogic
import StreamCore
import SwiftUI

/// The Picture in Picture (facecam overlay) settings and the device's live facecam status.
struct PiPSection: View {
    @Bindable var model: SettingsModel
    @State private var authorization = CameraAccess.authorization
    @Environment(\.scenePhase) private var scenePhase

    private var status: FacecamStatus {
        FacecamStatus(pipEnabled: model.settings.pipEnabled,
                      multitaskingCameraAccessSupported: CameraAccess.multitaskingSupported,
                      authorization: authorization, isSimulator: CameraAccess.isSimulator)
    }

    var body: some View {
        Section {
            Toggle("Picture-in-Picture (Facecam Overlay)", isOn: $model.settings.pipEnabled)
            if model.settings.pipEnabled {
                Picker("Corner", selection: $model.settings.pipCorner) {
                    Text("Top left").tag(StreamSettings.PiPCorner.topLeft)
                    Text("Top right").tag(StreamSettings.PiPCorner.topRight)
                    Text("Bottom left").tag(StreamSettings.PiPCorner.bottomLeft)
                    Text("Bottom right").tag(StreamSettings.PiPCorner.bottomRight)
                }
                VStack(alignment: .leading) {
                    Text("Size: \(Int((model.settings.pipScale * 100).rounded())) % of the frame width")
                    Slider(value: $model.settings.pipScale, in: StreamSettings.pipScaleRange, step: 0.01)
                }
                Picker("Camera", selection: $model.settings.cameraPosition) {
                    Text("Front").tag(StreamSettings.CameraPosition.front)
                    Text("Back").tag(StreamSettings.CameraPosition.back)
                }
            }
        } header: {
            Text("Picture in Picture")
        } footer: {
            Text(status.text).foregroundStyle(color(status.tone))
        }
        .onChange(of: model.settings.pipEnabled) { _, enabled in
            guard FacecamStatus.shouldRequestCameraAccess(pipEnabled: enabled, authorization: authorization) else {
                return
            }
            Task {
                _ = await CameraAccess.request()
                authorization = CameraAccess.authorization
            }
        }
        .onChange(of: scenePhase) { authorization = CameraAccess.authorization }
    }

    private func color(_ tone: FacecamStatus.Tone) -> Color {
        switch tone {
        case .ready: .green
        case .warning: .orange
        case .neutral: .secondary
        }
    }
}
