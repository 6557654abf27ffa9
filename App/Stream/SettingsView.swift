import AppLogic
import StreamCore
import SwiftUI

/// Every `StreamSettings` field, the connection, the audio input picker, PiP and the broadcast picker.
struct SettingsView: View {
    @Bindable var model: SettingsModel
    @Environment(\.displayScale) private var displayScale
    @State private var openedShow: OpenedShow?

    var body: some View {
        GeometryReader { geometry in
            Form {
                ConnectionSection(model: model)
                videoSection(screen: EncodeSizeLock.pixelSize(pointWidth: geometry.size.width,
                                                              pointHeight: geometry.size.height,
                                                              scale: displayScale))
                audioSection
                PiPSection(model: model)
                BroadcastSection()
                LiveShowsSection(opened: $openedShow)
                if !model.warnings.isEmpty {
                    Section("Notes") {
                        ForEach(model.warnings, id: \.self) { Text($0).font(.footnote) }
                    }
                }
            }
            .navigationDestination(item: $openedShow) { opened in opened.screen }
        }
        .navigationTitle("Stream")
        .onChange(of: model.settings) { model.saveSettings() }
    }

    private func videoSection(screen: PixelSize) -> some View {
        let plan = model.memoryPlan(screen: screen)
        return Section {
            Picker("Quality", selection: Binding(get: { model.settings.quality },
                                                 set: { model.settings.changeQuality(to: $0) })) {
                ForEach(StreamSettings.Quality.allCases, id: \.self) { Text($0.rawValue).tag($0) }
            }
            Picker("Frame rate", selection: Binding(get: { model.settings.frameRate },
                                                    set: { model.settings.changeFrameRate(to: $0) })) {
                ForEach(StreamSettings.FrameRate.allCases, id: \.self) { Text("\($0.rawValue) fps").tag($0) }
            }
            Stepper("Video bitrate: \(model.settings.videoBitrateKbps) kbps", value: $model.settings.videoBitrateKbps,
                    in: StreamSettings.videoBitrateRangeKbps, step: 250)
            Toggle("Adaptive bitrate", isOn: $model.settings.adaptiveBitrate)
        } header: {
            Text("Video")
        } footer: {
            Text(plan.note ?? "Encodes at \(plan.encodeSize) on this screen, locked when the broadcast starts.")
        }
    }

    private var audioSection: some View {
        Section("Audio") {
            Stepper("Audio bitrate: \(model.settings.audioBitrateKbps) kbps", value: $model.settings.audioBitrateKbps,
                    in: StreamSettings.audioBitrateRangeKbps, step: 32)
            // The seed's microphone-or-system switch; both mixed is the default (app audio on).
            Picker("Sound", selection: $model.settings.audioSource) {
                Text("Microphone").tag(StreamSettings.AudioSource.microphone)
                Text("System audio").tag(StreamSettings.AudioSource.system)
                Text("Both").tag(StreamSettings.AudioSource.both)
            }
            NavigationLink("Audio Input") {
                AudioInputPicker(selectedID: $model.settings.audioInputID)
            }
        }
    }
}
