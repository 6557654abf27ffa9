import ReplayKit
import SwiftUI

/// The system broadcast picker: the only supported way to start a system-wide broadcast.
struct BroadcastSection: View {
    var body: some View {
        Section {
            HStack {
                Spacer()
                BroadcastPickerView().frame(width: 60, height: 60)
                Spacer()
            }
        } header: {
            Text("Go Live")
        } footer: {
            Text("Tap to choose Stream and start. Turn the microphone on in the picker: the system only sends mic "
                 + "audio when it is on.")
        }
    }
}

/// `RPSystemBroadcastPickerView` preset to the StreamBroadcast extension, with the microphone button shown.
struct BroadcastPickerView: UIViewRepresentable {
    static let extensionBundleID = "com.joeblau.Stream.Broadcast"

    func makeUIView(context: Context) -> RPSystemBroadcastPickerView {
        let picker = RPSystemBroadcastPickerView(frame: CGRect(x: 0, y: 0, width: 60, height: 60))
        picker.preferredExtension = Self.extensionBundleID
        picker.showsMicrophoneButton = true
        return picker
    }

    func updateUIView(_ uiView: RPSystemBroadcastPickerView, context: Context) {}
}
