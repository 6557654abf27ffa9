import IngestServer

/// What SIGHUP (or `stream serve reload`) re-reads in `stream serve` (docs/operations.md): the shows file, the keys
/// file and the webhook secret's file. Each file is read and checked whole; one that fails is refused (its line, when
/// it has one, in the log) and what is in force stays.
struct ServeReload: Sendable {
    /// The live shows and their file, with `--shows`.
    var shows: (server: ServeShows, file: String)?
    /// The keys the ingest and WHIP allow and their file, with `--keys-file`.
    var keys: (list: KeyList, file: String)?
    /// The webhooks, whose secret's file is read again, with `--webhook`.
    var webhooks: ServeWebhooks?

    /// What a reload did: a line per file, and whether any was refused.
    struct Outcome: Sendable, Equatable {
        var lines: [String]
        var refused: Bool { lines.contains { $0.contains(": reload refused") } }
    }

    /// Re-reads every file.
    func run() -> Outcome {
        var lines: [String] = []
        if shows == nil && keys == nil && webhooks == nil {
            lines.append("reload: nothing to re-read (no --shows, --keys-file or --webhook)")
        }
        if let shows { lines.append(shows.server.reload(shows.file)) }
        if let keys {
            do {
                let fresh = try KeyList(contentsOfFile: keys.file)
                keys.list.replace(with: fresh)
                lines.append("keys: reloaded \(keys.file): \(fresh.count) key\(fresh.count == 1 ? "" : "s")")
            } catch {
                lines.append("keys: reload refused: \(error.description); the keys in force stay")
            }
        }
        if let webhooks { lines.append(webhooks.reloadSecret()) }
        return Outcome(lines: lines)
    }
}
