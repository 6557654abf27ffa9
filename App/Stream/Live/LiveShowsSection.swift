import RealtimeCalls
import SwiftUI

/// Opens a live show: the server, the stream name and (for development) a pasted token, kept in memory only. An
/// app with its own backend passes a token provider that asks it instead.
struct LiveShowsSection: View {
    @State private var server = "https://"
    @State private var stream = "show:"
    @State private var token = ""
    @State private var opened: LiveShowModel?
    @State private var media: CameraLiveMedia?
    @State private var error: String?

    var body: some View {
        Section("Live shows") {
            TextField("Server (https://…)", text: $server).textInputAutocapitalization(.never)
            TextField("Stream (show:…)", text: $stream).textInputAutocapitalization(.never)
            SecureField("Access token (optional)", text: $token)
            Button("Watch") { open(host: false) }
            Button("Go live") { open(host: true) }
            if let error { Text(error).font(.footnote).foregroundStyle(.red) }
        }
        .navigationDestination(item: $opened) { live in
            if let media { GoLiveScreen(live: live, media: media) } else { WatchScreen(live: live) }
        }
    }

    private func open(host: Bool) {
        let token = self.token.isEmpty ? nil : self.token
        let client = Realtime(server: server) { token }
        let media = host ? CameraLiveMedia() : nil
        let stream = self.stream
        Task { @MainActor in
            do throws(LiveStreamError) {
                let show = try await client.calls.stream(stream, media: media)
                self.media = media
                opened = LiveShowModel(show: show)
                error = nil
            } catch {
                self.error = error.description
            }
        }
    }
}

extension LiveShowModel: Hashable {
    nonisolated static func == (lhs: LiveShowModel, rhs: LiveShowModel) -> Bool { lhs === rhs }
    nonisolated func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
