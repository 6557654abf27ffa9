#if canImport(Glibc)
import FoundationEssentials
import Dispatch
import Glibc
#else
import Foundation
#endif
import LiveProtocol
import Locking
import RealtimeCalls

/// `stream watch SERVER STREAM`: a live show on a terminal: the state, the count, the pinned message and the chat
/// as it arrives; lines typed are sent, `/react KIND` reacts, `/leave` leaves.
struct WatchCommand: Command {
    let name = "watch"
    let summary = "Watch a live show: state, count, pictures and chat; lines typed are sent."
    let argumentsSynopsis = "SERVER STREAM"
    let discussion = """
        SERVER is the server's HTTP(S) base URL (e.g. http://127.0.0.1:8080), STREAM a stream name (show:mugs).
        Without a token you watch as a visitor. Lines typed on standard input are sent to the chat; `/react heart`
        (like, laugh, wow, clap, fire) reacts; `/leave` leaves. With --json every event is one JSON object per
        line: welcome, state, media, tiles, viewers, message, deleted, cleared, pinned, slow, canWrite, reactions,
        error, ended. A lost connection is retried with backoff and the chat resynchronised (media: reconnecting).
        When the host ends the show, watch leaves (--stay keeps watching).
        Exit codes: 0 when the show ends or you leave (or Ctrl-C), 1 with the reason when kicked, banned or
        refused (unauthorized, not_found, banned), 2 usage error.
        """
    var options: [OptionSpec] {
        ShowClientOptions.specs + [
            .flag("json", help: "Print one JSON object per event."),
            .flag("stay", help: "Keep watching after the host ends the show (it may go live again)."),
        ]
    }

    func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        let client = try ShowClientOptions(arguments, context: context, command: "watch")
        guard arguments.positionals.count == 2 else {
            throw CLIError.usage("watch takes SERVER STREAM only")
        }
        let view = WatchView(json: arguments.flag("json"))
        let exitOnEnd = !arguments.flag("stay")
        let console = context.console
        let outcome = try runBlocking { () async throws -> EndReason? in
            let show = try await client.join()
            view.opening(show.model).forEach(console.print)
            ShowClientOptions.printChanges(of: show, view: view, console: console) { old, new in
                if exitOnEnd && new.state == .ended && old.state != .ended { show.leave() }
            }
            show.onMessage { console.print(view.message($0)) }
            show.onReactions { console.print(view.reactions($0)) }
            show.onError { console.print(view.error($0)) }
            show.onEnded { console.print(view.ended($0)) }
            let interrupt = InterruptSignal()
            return await withTaskGroup(of: EndReason??.self) { group in
                group.addTask { .some(await show.ended()) }
                group.addTask {
                    if await interrupt.wait() { show.leave() }
                    return nil
                }
                // Typed lines: read on a thread of their own (standard input blocks); ends with the input.
                DetachedThread.start(name: "stream-watch-in") {
                    while let line = console.readLine() {
                        if !Self.typed(line, show: show, view: view, console: console) { break }
                    }
                }
                var ending: EndReason?
                while let result = await group.next() {
                    if let result {
                        ending = result
                        group.cancelAll()
                    }
                }
                return ending
            }
        }
        switch outcome {
        case .left?:
            return ExitCode.success
        case .kicked?, .banned?:
            throw CLIError.failure("\(outcome!.rawValue): a host or mod put you out of \(client.stream)")
        case nil:
            throw CLIError.failure("the server refused to let this client back in (see the error above)")
        }
    }

    /// Handles one typed line; false after `/leave`.
    private static func typed(_ line: String, show: LiveStream, view: WatchView, console: Console) -> Bool {
        let text = line.trimmed
        guard !text.isEmpty else { return true }
        if text == "/leave" {
            show.leave()
            return false
        }
        if text.hasPrefix("/react") {
            let kind = text.dropFirst("/react".count).trimmed
            guard let reaction = Reaction(rawValue: kind) else {
                console.printError("stream: /react takes one of "
                                   + Reaction.allCases.map(\.rawValue).joined(separator: ", "))
                return true
            }
            show.react(reaction)
            return true
        }
        let done = DispatchSemaphore(value: 0)
        Task {
            do throws(LiveStreamError) {
                try await show.send(line)
            } catch {
                console.print(view.error(error))
            }
            done.signal()
        }
        done.wait()
        return true
    }
}
