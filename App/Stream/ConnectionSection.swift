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
            SecureField("Stream Key", text: $model.streamKey)
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
