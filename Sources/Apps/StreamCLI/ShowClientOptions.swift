#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Locking
import RealtimeCalls

/// What the live-show commands (`watch`, `live`, `show ingest`, `show mod`) share: `SERVER STREAM`, the token
/// (standard input or a private file, never an argument, never printed), the CA file for https, and how the
/// client's errors become exit codes.
struct ShowClientOptions {
    static let specs: [OptionSpec] = [
        .flag("token-stdin", help: "Read the access token from the first line of standard input."),
        .value("token-file", valueName: "FILE", help: "Read the access token from FILE (mode 0600)."),
        .value("server-ca-file", valueName: "FILE", help: "Extra CA certificate (PEM) to trust for https."),
    ]

    /// The server's HTTP(S) base URL.
    var server: String
    /// The stream name.
    var stream: String
    /// The token, nil for a visitor.
    var token: String?
    /// The extra CA file.
    var caFile: String?

    /// The largest token file read.
    static let maximumTokenSize = 8192

    /// Reads `SERVER STREAM` (the first two positionals) and the token.
    /// - Throws: `CLIError` (usage) for missing positionals, both token sources, an unreadable or public file.
    init(_ arguments: ParsedArguments, context: CommandContext, command: String) throws {
        guard arguments.positionals.count >= 2 else {
            throw CLIError.usage("\(command) needs SERVER STREAM, e.g. http://127.0.0.1:8080 show:mugs")
        }
        server = arguments.positionals[0]
        stream = arguments.positionals[1]
        caFile = arguments.value("server-ca-file")
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw CLIError.usage("--server-ca-file \(caFile) cannot be read")
        }
        let file = arguments.value("token-file")
        switch (arguments.flag("token-stdin"), file) {
        case (true, .some):
            throw CLIError.usage("give the token with --token-stdin or --token-file, not both")
        case (true, nil):
            // On a terminal it is read without echo, as `stream credentials set` reads a stream key.
            guard let line = context.console.readSecret("Access token: ")?.trimmed,
                  !line.isEmpty else {
                throw CLIError.usage("--token-stdin: standard input has no token on its first line")
            }
            token = line
        case (false, let path?):
            token = try Self.readTokenFile(path)
        case (false, nil):
            token = nil
        }
        do {
            _ = try StreamAddress.webSocketURL(server: server, stream: stream)
        } catch {
            throw CLIError.usage(error.reason)
        }
    }

    /// The client: the token given once (a command does not outlive it; a new one means running it again).
    func client() -> Realtime {
        let token = self.token
        #if os(Linux)
        let options = Realtime.Options(connector: WebSocketClientConnector(caFile: caFile))
        #else
        let options = Realtime.Options()
        #endif
        return Realtime(server: server, options: options) { token }
    }

    /// Joins the stream, a refusal becoming exit 1 with the server's code and reason.
    func join(media: (any LiveMedia)? = nil) async throws -> LiveStream {
        do {
            return try await client().calls.stream(stream, media: media)
        } catch {
            throw Self.failure(error)
        }
    }

    /// Joins, runs one call, leaves; a refusal is exit 1 with the server's code and reason.
    func once<T: Sendable>(_ call: @Sendable (LiveStream) async throws(LiveStreamError) -> T) async throws -> T {
        let show = try await join()
        defer { show.leave() }
        do throws(LiveStreamError) {
            return try await call(show)
        } catch {
            throw Self.failure(error)
        }
    }

    /// Prints a line per change of the show (as `view` words it); `also` sees each change too.
    static func printChanges(of show: LiveStream, view: WatchView, console: Console,
                             also: @escaping @Sendable (LiveStreamModel, LiveStreamModel) -> Void = { _, _ in }) {
        let shown = Locked(show.model)
        show.onChange {
            let (old, new) = shown.withLock { held in
                defer { held = show.model }
                return (held, show.model)
            }
            view.changes(from: old, to: new).forEach(console.print)
            also(old, new)
        }
    }

    /// A client error as the command's failure: `code: reason`, exit 1.
    static func failure(_ error: LiveStreamError) -> CLIError {
        CLIError.failure("\(error)")
    }

    private static func readTokenFile(_ path: String) throws -> String {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw CLIError.usage("--token-file: cannot read \(path)")
        }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw CLIError.usage("--token-file: \(path) can be read by others (mode \(String(mode, radix: 8))): "
                                    + "run `chmod 600 \(path)`; a token is a secret")
        }
        guard status.st_size <= maximumTokenSize, let data = FileManager.default.contents(atPath: path),
              let text = String(data: data, encoding: .utf8)?.trimmed,
              !text.isEmpty else {
            throw CLIError.usage("--token-file: \(path) is empty or larger than \(maximumTokenSize) bytes")
        }
        return text
    }
}
