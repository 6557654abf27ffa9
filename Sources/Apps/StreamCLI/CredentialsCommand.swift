#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import StreamCore

/// `stream credentials set|show|clear`: the ingest URL and stream key.
struct CredentialsCommand: Command {
    let name = "credentials"
    let summary = "Store, show (key redacted) or clear the ingest URL and stream key."
    let subcommands: [any Command] = [CredentialsSetCommand(), CredentialsShowCommand(), CredentialsClearCommand()]
}

/// `stream credentials set URL` (the key from stdin or a prompt without echo).
struct CredentialsSetCommand: Command {
    let name = "set"
    let summary = "Store the ingest URL and the stream key (or a WHIP URL and its token)."
    let argumentsSynopsis = "URL"
    let discussion = """
        URL is the server URL from your service, e.g. rtmps://live.restream.io/live (rtmp:// uses port 1935,
        rtmps:// uses TLS on port 443; rtmps://host:PORT/app for another port), or a WHIP endpoint
        (https://host/path or http://host:PORT/path), whose bearer token is then stored in the key's place.
        The stream key (or token) is read from standard input: typed at a prompt without echo, or piped
        (`stream credentials set URL < keyfile`). It is never taken from the command line, where other users
        and shell history could see it.
        """

    func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        guard !arguments.positionals.isEmpty else { throw CLIError.usage("'credentials set' needs the ingest URL") }
        guard arguments.positionals.count == 1 else {
            throw CLIError.usage("'credentials set' takes only the URL: the stream key is never read from the "
                                    + "command line; type it at the prompt or pipe it on stdin")
        }
        let url = try IngestURL(parsing: arguments.positionals[0])
        guard let line = context.console.readSecret(url.scheme.isWHIP ? "Bearer token: " : "Stream key: ") else {
            throw CLIError.usage("no stream key: type it at the prompt or pipe it on stdin")
        }
        let key = line.trimmed
        try StreamCredentials.validateStreamKey(key, for: url.scheme)
        if url.tcUrl.contains(key) {
            throw CLIError.usage("the URL already contains the stream key: give the server URL without it "
                                    + "(e.g. rtmps://live.restream.io/live)")
        }
        let credentials = StreamCredentials(url: url, streamKey: key)
        let store = try context.credentialStore()
        try store.save(credentials)
        context.console.print("Saved \(credentials) to \(store.location)")
        return ExitCode.success
    }
}

/// `stream credentials show`.
struct CredentialsShowCommand: Command {
    let name = "show"
    let summary = "Print the stored URL and transport; the key is shown as ••••."

    func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        try arguments.requireNoPositionals("credentials show")
        let store = try context.credentialStore()
        guard let credentials = try store.load() else {
            throw CLIError.failure("no credentials stored in \(store.location): run 'stream credentials set URL'")
        }
        let url = credentials.url
        let rows = [
            ("url", url.tcUrl),
            ("transport", Self.transport(url)),
            ("host", url.host),
            (url.scheme.isWHIP ? "path" : "app", url.scheme.isWHIP ? "/" + url.appName : url.app),
            ("key", Redaction.mask),
            ("stored in", store.location),
        ]
        for line in HelpFormatter.table(rows) {
            context.console.print(String(line.dropFirst(2)))
        }
        return ExitCode.success
    }
}

extension CredentialsShowCommand {
    static func transport(_ url: IngestURL) -> String {
        switch url.scheme {
        case .rtmp: "RTMP (plain TCP), port \(url.port)"
        case .rtmps: "RTMPS (TLS), port \(url.port)"
        case .http: "WHIP over HTTP (WebRTC), port \(url.port)"
        case .https: "WHIP over HTTPS (WebRTC), port \(url.port)"
        }
    }
}

/// `stream credentials clear`.
struct CredentialsClearCommand: Command {
    let name = "clear"
    let summary = "Delete the stored URL and stream key."

    func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        try arguments.requireNoPositionals("credentials clear")
        let store = try context.credentialStore()
        try store.clear()
        context.console.print("Credentials cleared.")
        return ExitCode.success
    }
}
