import AppLogic
import LiveProtocol
import RealtimeCalls
import SwiftUI

/// The show as the watch screen reads it, on the main actor: a copy of the client's model refreshed on each change.
@MainActor @Observable
final class LiveShowModel {
    let show: LiveStream
    private(set) var model: LiveStreamModel
    var error: String?

    init(show: LiveStream) {
        self.show = show
        model = show.model
        show.onChange { [weak self, weak show] in
            guard let model = show?.model else { return }
            Task { @MainActor in self?.model = model }
        }
        show.onError { [weak self] error in
            Task { @MainActor in self?.error = WatchScreenState.text(for: error) }
        }
    }

    var screen: WatchScreenState {
        WatchScreenState(model, now: Int64(Date().timeIntervalSince1970 * 1000))
    }

    func send(_ text: String) async -> Bool {
        do {
            try await show.send(text)
            return true
        } catch {
            self.error = WatchScreenState.text(for: error)
            return false
        }
    }
}

/// The watch screen: the picture, the state and count, the pinned message, the chat with its history, the composer
/// and the reactions.
struct WatchScreen: View {
    @State var live: LiveShowModel
    @State private var draft = ""

    var body: some View {
        let screen = live.screen
        VStack(spacing: 8) {
            LiveStreamVideo(show: live.show)
                .aspectRatio(16 / 9, contentMode: .fit)
            HStack {
                Text(screen.stateLabel).bold()
                Spacer()
                Text(screen.countLabel)
            }
            if let banner = screen.banner { Text(banner).font(.footnote).foregroundStyle(.orange) }
            if let pinned = live.model.pinned {
                Text("📌 \(pinned.name): \(pinned.text)").font(.callout)
            }
            ScrollViewReader { scroller in
                List(live.model.messages, id: \.id) { message in
                    Text("\(message.name): ").bold() + Text(message.text)
                }
                .onChange(of: live.model.messages.last?.id) { _, last in
                    if let last { scroller.scrollTo(last) }
                }
            }
            if let error = live.error { Text(error).font(.footnote).foregroundStyle(.red) }
            HStack {
                ForEach(screen.reactions, id: \.self) { reaction in
                    Button(Self.symbol(reaction)) { live.show.react(reaction) }
                }
            }
            HStack {
                TextField(screen.placeholder, text: $draft)
                    .disabled(!screen.canCompose)
                Button("Send") {
                    let text = draft
                    Task { if await live.send(text) { draft = "" } }
                }
                .disabled(!screen.canCompose || !WatchScreenState.canSend(draft))
            }
        }
        .padding()
        .navigationTitle(live.model.name)
        .onDisappear { live.show.leave() }
    }

    static func symbol(_ reaction: Reaction) -> String {
        switch reaction {
        case .heart: "❤️"
        case .like: "👍"
        case .laugh: "😂"
        case .wow: "😮"
        case .clap: "👏"
        case .fire: "🔥"
        }
    }
}
