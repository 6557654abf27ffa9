import JSON
import LiveProtocol
import RealtimeCalls

/// What `stream watch` prints, decided from the show's model before and after each change: a line per thing that
/// changed, as text for people or one JSON object per line for scripts. Pure: models in, lines out.
struct WatchView {
    /// Text or JSON lines.
    var json: Bool

    /// The lines for the show as it is on joining: the state, count, pictures, pinned message and history.
    func opening(_ model: LiveStreamModel) -> [String] {
        if json {
            return [line("welcome", [
                ("title", .optional(model.title)), ("description", .optional(model.description)),
                ("state", .string(model.state.rawValue)), ("media", .string(model.media.rawValue)),
                ("tiles", tiles(model.tiles)), ("main", .optional(model.main?.rawValue)),
                ("viewers", .integer(model.viewers)), ("pinned", model.pinned.map(LiveCodec.json) ?? .null),
                ("slow", .integer(model.slow)), ("canWrite", .bool(model.canWrite)),
                ("role", .optional(model.you?.role.rawValue)),
                ("messages", .array(model.messages.map(LiveCodec.json))),
            ])]
        }
        var lines = ["\(model.name): \(model.state.rawValue), \(model.viewers) watching"
                        + (model.tiles.isEmpty ? "" : ", pictures \(tileText(model.tiles, main: model.main))")
                        + (model.slow > 0 ? ", slow mode \(model.slow) s" : "")
                        + (model.canWrite ? "" : ", read only")]
        // The declaration's title and description above it, made safe for a terminal line by line.
        let about = (model.title.map { [$0] } ?? [])
            + (model.description?.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) ?? [])
        lines.insert(contentsOf: about.map(Self.terminalSafe), at: 0)
        if let pinned = model.pinned { lines.append("pinned: \(text(pinned))") }
        lines += model.messages.map(text)
        return lines
    }

    /// The lines for what changed between two models (new messages come from ``message(_:)``).
    func changes(from old: LiveStreamModel, to new: LiveStreamModel) -> [String] {
        var lines: [String] = []
        if old.state != new.state {
            lines.append(json ? line("state", [("state", .string(new.state.rawValue))])
                              : "state: \(new.state.rawValue)")
        }
        if old.media != new.media {
            lines.append(json ? line("media", [("media", .string(new.media.rawValue))])
                              : "media: \(new.media.rawValue)")
        }
        if old.tiles != new.tiles || old.main != new.main {
            lines.append(json ? line("tiles", [("tiles", tiles(new.tiles)), ("main", .optional(new.main?.rawValue))])
                              : "pictures: \(new.tiles.isEmpty ? "none" : tileText(new.tiles, main: new.main))")
        }
        if old.viewers != new.viewers {
            lines.append(json ? line("viewers", [("viewers", .integer(new.viewers))]) : "\(new.viewers) watching")
        }
        if old.pinned != new.pinned {
            lines.append(json ? line("pinned", [("message", new.pinned.map(LiveCodec.json) ?? .null)])
                              : new.pinned.map { "pinned: \(text($0))" } ?? "unpinned")
        }
        if old.slow != new.slow {
            lines.append(json ? line("slow", [("seconds", .integer(new.slow))])
                              : new.slow > 0 ? "slow mode: one message every \(new.slow) s" : "slow mode off")
        }
        if old.canWrite != new.canWrite {
            lines.append(json ? line("canWrite", [("canWrite", .bool(new.canWrite))])
                              : new.canWrite ? "you may write again" : "you may not write now")
        }
        // Messages that left the chat: deleted, or all of them cleared (not those the bound dropped from the front).
        let kept = Set(new.messages.map(\.id))
        let floor = new.messages.count >= LiveStreamModel.maximumMessages ? new.messages.first?.id ?? 0 : 0
        let removed = old.messages.filter { !kept.contains($0.id) && $0.id >= floor }.map(\.id)
        if new.messages.isEmpty && removed.count > 1 {
            lines.append(json ? line("cleared", []) : "the chat was cleared")
        } else {
            lines += removed.map { id in json ? line("deleted", [("message", .integer(id))]) : "deleted message \(id)" }
        }
        return lines
    }

    /// The line for a new message.
    func message(_ message: ChatMessage) -> String {
        json ? line("message", [("message", LiveCodec.json(message))]) : text(message)
    }

    /// The line for reactions.
    func reactions(_ counts: [Reaction: Int]) -> String {
        let sorted = Reaction.allCases.compactMap { kind in counts[kind].map { (kind, $0) } }
        if json {
            return line("reactions", [("counts", .object(sorted.map { ($0.0.rawValue, .integer($0.1)) }))])
        }
        return "reactions: " + sorted.map { "\($0.0.rawValue) \($0.1)" }.joined(separator: ", ")
    }

    /// The line for the end of the session.
    func ended(_ reason: EndReason) -> String {
        json ? line("ended", [("reason", .string(reason.rawValue))]) : "ended: \(reason.rawValue)"
    }

    /// The line for a refused call.
    func error(_ error: LiveStreamError) -> String {
        var members: [(String, JSONValue)] = [("code", .string(error.code)), ("reason", .string(error.reason))]
        if let wait = error.retryAfter { members.append(("retryAfter", .integer(wait))) }
        return json ? line("error", members) : "refused: " + Self.terminalSafe("\(error)")
    }

    private func line(_ event: String, _ members: [(String, JSONValue)]) -> String {
        JSONWriter.string(.object([("event", .string(event))] + members))
    }

    private func tiles(_ tiles: [TileKind]) -> JSONValue {
        .array(tiles.map { .string($0.rawValue) })
    }

    private func tileText(_ tiles: [TileKind], main: TileKind?) -> String {
        tiles.map { $0 == main ? "\($0.rawValue) (main)" : $0.rawValue }.joined(separator: ", ")
    }

    private func text(_ message: ChatMessage) -> String {
        let badge = message.role == .host || message.role == .mod ? " [\(message.role.rawValue)]" : ""
        // A line feed in a message starts a continuation line marked as such, so that it cannot pass for a line
        // of another writer ("Ann [host]: ...").
        let lines = message.text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { Self.terminalSafe(String($0)) }
        return "\(Self.terminalSafe(message.name))\(badge): " + lines.joined(separator: "\n  | ")
    }

    /// Text as a terminal may show it: control characters (ESC, BEL, CR... which could retitle or clear the
    /// viewer's terminal) and bidi controls (which reorder what follows) are written as `\u{1B}`.
    static func terminalSafe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var safe = ""
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                safe += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                safe.unicodeScalars.append(scalar)
            }
        }
        return safe
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar.properties.isBidiControl
    }
}
