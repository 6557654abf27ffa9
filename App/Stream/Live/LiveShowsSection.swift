import RealtimeCalls
import SwiftUI

/// A show opened from ``LiveShowsSection``: what the screen it navigates to needs.
struct OpenedShow: Hashable {
    let live: LiveShowModel
    /// The camera, when the show was opened to go live.
    let media: CameraLiveMedia?

    nonisolated static func == (lhs: OpenedShow, rhs: OpenedShow) -> Bool { lhs.live === rhs.live }
    nonisolated func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(live)) }

    /// The screen to show: Go live with the camera, else Watch.
    @MainActor @ViewBuilder var screen: some View {
        if let media { GoLiveScreen(live: live, media: media) } else { WatchScreen(live: live) }
    }
}

/// Opens a live show: the server, the stream name and (for development) a pasted token, kept in memory only. An
/// app with its own backend passes a token provider that asks it instead. The navigation itself is the Form's
/// (issue 35 defect 7: `.navigationDestination` inside a `Form`'s section is ignored, so Watch and Go live never
/// opened): this section only sets `opened`.
struct LiveShowsSection: View {
    @Binding var opened: OpenedShow?
    @State private var server = "https://"
    @State private var stream = "show:"
    @State private var token = ""
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
    }

    private func open(host: Bool) {
        let token = self.token.isEmpty ? nil : self.token
        let client = Realtime(server: server) { token }
        let media = host ? CameraLiveMedia() : nil
        let stream = self.stream
        Task { @MainActor in
            do throws(LiveStreamError) {
                let show = try await client.calls.stream(stream, media: media)
                opened = OpenedShow(live: LiveShowModel(show: show), media: media)
                error = nil
            } catch {
                self.error = error.description
            }
        }
    }
}
