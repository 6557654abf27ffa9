import StreamCore
import SwiftUI

/// The ingest URL and the stream key (a secure field), saved to the Keychain.
struct ConnectionSection: View {
    @Bindable var model: SettingsModel

    var body: some View {
        Section {
            TextField("rtmps://live.restream.io/live", text: $model.urlText)
                .keyboardType(.URL)
                .textInputAutocapitalization(.never)
                .autocorrectionDisabled()
            SecureField("Stream Key (or WHIP token)", text: $model.streamKey)
            // WHIP needs an https:// endpoint; the extension says so when the URL and this disagree (PublishPlan).
            Picker("Protocol", selection: $model.settings.publishProtocol) {
                Text("RTMP").tag(StreamSettings.PublishProtocol.rtmp)
                Text("WebRTC (WHIP)").tag(StreamSettings.PublishProtocol.whip)
            }
            Button("Save to Keychain") { model.saveConnection() }
        } header: {
            Text("Connection")
        } footer: {
            Text(model.connectionStatus.isEmpty
                 ? "The key is the publish name from your service's dashboard: do not append it to the URL."
                 : model.connectionStatus)
        }
    }
}
