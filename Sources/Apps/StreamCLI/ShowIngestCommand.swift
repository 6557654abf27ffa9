import JSON
import LiveProtocol
import Locking
import RealtimeCalls

/// `stream show ingest SERVER STREAM [--renew] [--json]`: the OBS URL and stream key of a show (host only).
struct ShowIngestCommand: Command {
    let name = "ingest"
    let summary = "Print the show's OBS URL and stream key (host only); --renew makes a new key."
    let argumentsSynopsis = "SERVER STREAM"
    let discussion = """
        Prints two lines, `url: rtmp://…` and `key: …`, for OBS (Settings → Stream → Custom); --json prints them
        as one object. The same key comes back until --renew makes a new one: the old key is then refused and a
        publisher using it is cut off within a second. The key is a secret: this command prints it on purpose,
        so keep its output out of logs.
        """
    var options: [OptionSpec] {
        ShowClientOptions.specs + [
            .flag("renew", help: "Make a new key; the old one stops working at once."),
            .flag("json", help: "Print {\"url\": …, \"key\": …}."),
        ]
    }

    func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        let client = try ShowClientOptions(arguments, context: context, command: "show ingest")
        guard arguments.positionals.count == 2 else {
            throw CLIError.usage("show ingest takes SERVER STREAM only")
        }
        let renew = arguments.flag("renew")
        let endpoint = try runBlocking { () async throws -> IngestEndpoint in
            try await client.once { show throws(LiveStreamError) in
                let (url, key) = try await show.ingest(renew: renew)
                return IngestEndpoint(url: url, key: key)
            }
        }
        if arguments.flag("json") {
            context.console.print(JSONWriter.string(.object([("url", .string(endpoint.url)),
                                                             ("key", .string(endpoint.key))])))
        } else {
            context.console.print("url: \(endpoint.url)")
            context.console.print("key: \(endpoint.key)")
        }
        return ExitCode.success
    }
}
