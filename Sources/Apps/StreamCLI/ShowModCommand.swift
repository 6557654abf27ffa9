#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Locking
import RealtimeCalls

/// `stream show mod SERVER STREAM ACTION ...`: one moderation call (host or mod).
struct ShowModCommand: Command {
    let name = "mod"
    let summary = "Moderate a show: delete, pin, unpin, timeout, slow, clear, kick, ban, unban."
    let argumentsSynopsis = "SERVER STREAM ACTION [ARG ...]"
    let discussion = """
        Actions: delete MESSAGE-ID | pin MESSAGE-ID | unpin | timeout USER SECONDS (60 to 86400; they go on
        watching) | slow SECONDS (0 turns it off, at most 3600) | clear | kick USER (out now; they may come back)
        | ban USER | unban USER. Message ids are those `stream watch --json` prints. A mod may act on viewers, not
        on the host or another mod (not_host); nobody acts on a host (invalid).
        """
    var options: [OptionSpec] { ShowClientOptions.specs }

    /// One parsed action.
    enum Action: Equatable {
        case delete(Int64), pin(Int64), unpin, timeout(String, Int), slow(Int), clear
        case kick(String), ban(String), unban(String)

        /// Reads `ACTION [ARG ...]`.
        init(_ words: [String]) throws(CLIError) {
            guard let verb = words.first else {
                throw CLIError.usage("show mod needs an action: delete, pin, unpin, timeout, slow, clear, kick, ban, "
                                        + "unban")
            }
            let rest = Array(words.dropFirst())
            func count(_ expected: Int, _ shape: String) throws(CLIError) {
                guard rest.count == expected else { throw CLIError.usage("usage: show mod SERVER STREAM \(shape)") }
            }
            func number(_ text: String, _ what: String) throws(CLIError) -> Int64 {
                guard let value = Int64(text), value >= 0 else {
                    throw CLIError.usage("\(what) must be a whole number, not '\(text.prefix(20))'")
                }
                return value
            }
            switch verb {
            case "delete":
                try count(1, "delete MESSAGE-ID")
                self = .delete(try number(rest[0], "MESSAGE-ID"))
            case "pin":
                try count(1, "pin MESSAGE-ID")
                self = .pin(try number(rest[0], "MESSAGE-ID"))
            case "unpin":
                try count(0, "unpin")
                self = .unpin
            case "timeout":
                try count(2, "timeout USER SECONDS")
                self = .timeout(rest[0], Int(clamping: try number(rest[1], "SECONDS")))
            case "slow":
                try count(1, "slow SECONDS")
                self = .slow(Int(clamping: try number(rest[0], "SECONDS")))
            case "clear":
                try count(0, "clear")
                self = .clear
            case "kick":
                try count(1, "kick USER")
                self = .kick(rest[0])
            case "ban":
                try count(1, "ban USER")
                self = .ban(rest[0])
            case "unban":
                try count(1, "unban USER")
                self = .unban(rest[0])
            default:
                throw CLIError.usage("unknown action '\(verb.prefix(20))': delete, pin, unpin, timeout, slow, clear, "
                                        + "kick, ban, unban")
            }
        }

        /// Carries it out; returns the line to print.
        func perform(on show: LiveStream) async throws(LiveStreamError) -> String {
            switch self {
            case .delete(let id):
                try await show.deleteMessage(id)
                return "deleted message \(id)"
            case .pin(let id):
                try await show.pin(id)
                return "pinned message \(id)"
            case .unpin:
                try await show.unpin()
                return "unpinned"
            case .timeout(let user, let seconds):
                let until = try await show.timeout(user, seconds: seconds)
                let date = Date(timeIntervalSince1970: Double(until) / 1000)
                return "\(user) may not write until \(date.formatted(.iso8601))"
            case .slow(let seconds):
                try await show.setSlow(seconds)
                return seconds == 0 ? "slow mode off" : "slow mode: one message every \(seconds) s"
            case .clear:
                try await show.clearChat()
                return "cleared the chat"
            case .kick(let user):
                try await show.kick(user)
                return "kicked \(user)"
            case .ban(let user):
                try await show.ban(user)
                return "banned \(user)"
            case .unban(let user):
                try await show.unban(user)
                return "unbanned \(user)"
            }
        }
    }

    func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        let client = try ShowClientOptions(arguments, context: context, command: "show mod")
        let action = try Action(Array(arguments.positionals.dropFirst(2)))
        let line = try runBlocking { () async throws -> String in
            try await client.once { show throws(LiveStreamError) in try await action.perform(on: show) }
        }
        context.console.print(line)
        return ExitCode.success
    }
}
