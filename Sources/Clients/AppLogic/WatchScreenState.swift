import LiveProtocol
import RealtimeCalls

/// What the watch screen shows, decided from the show: the labels, the connection banner, whether and what the
/// composer lets the user write, and the text for a refused call. Pure: the model and the time in.
public struct WatchScreenState: Sendable, Hashable {
    /// "Live now", "Not live yet" or "Ended".
    public var stateLabel: String
    /// "3 watching".
    public var countLabel: String
    /// "Connecting…", "Reconnecting…" or "Disconnected"; nil while connected.
    public var banner: String?
    /// Whether the text field and send button are enabled.
    public var canCompose: Bool
    /// The composer's placeholder: why it is off, or the slow-mode rule.
    public var placeholder: String
    /// The reaction buttons to show.
    public var reactions: [Reaction]

    /// Decides from the show.
    /// - Parameters:
    ///   - model: the show (``LiveStream/model``).
    ///   - now: milliseconds since 1970 (for a timeout's end).
    public init(_ model: LiveStreamModel, now: Int64) {
        switch model.state {
        case .live: stateLabel = "Live now"
        case .idle: stateLabel = "Not live yet"
        case .ended: stateLabel = "Ended"
        }
        countLabel = "\(model.viewers) watching"
        switch model.media {
        case .live: banner = nil
        case .connecting: banner = "Connecting…"
        case .reconnecting: banner = "Reconnecting…"
        case .off: banner = model.ended.map { Self.endedText($0) } ?? "Disconnected"
        }
        let role = model.you?.role
        let connected = model.media == .live
        canCompose = connected && model.canWrite
        reactions = connected && role?.writes == true ? model.reactionKinds : []
        if role?.writes != true {
            placeholder = "Only watching"
        } else if let until = model.you?.timeoutUntil, !model.canWrite {
            let minutes = max(1, Int((until - now + 59_999) / 60_000))
            placeholder = "Timed out: \(minutes) min left"
        } else if model.slow > 0 && role == .viewer {
            placeholder = "Slow mode: one message every \(model.slow) s"
        } else {
            placeholder = "Say something…"
        }
    }

    /// Whether `text` can be sent: not only white space, at most 500 Unicode code points.
    public static func canSend(_ text: String) -> Bool {
        !text.allSatisfy(\.isWhitespace) && text.unicodeScalars.count <= ChatMessage.maximumLength
    }

    /// The sentence to show for a refused call.
    public static func text(for error: LiveStreamError) -> String {
        switch error {
        case .notHost: "Only the host can do that."
        case .readOnly: "You can watch but not write in this stream."
        case .slow(_, let seconds): "Slow mode: wait \(seconds) s."
        case .timeout(_, let seconds): "You are timed out for \(max(1, (seconds + 59) / 60)) more min."
        case .unauthorized: "Sign in again to join this stream."
        case .notFound: "This stream does not exist."
        case .banned: "You are banned from this stream."
        case .invalid(let reason): "Not sent: \(reason)."
        case .rateLimited(_, let seconds): "Too fast: wait \(seconds) s."
        case .unavailable: "The server could not save that; try again."
        case .disconnected: "Not connected; reconnecting…"
        case .ended(let reason): endedText(reason)
        case .media(let reason): "Camera or microphone: \(reason)"
        }
    }

    private static func endedText(_ reason: EndReason) -> String {
        switch reason {
        case .left: "You left the stream."
        case .kicked: "You were removed from the stream."
        case .banned: "You are banned from this stream."
        }
    }
}
