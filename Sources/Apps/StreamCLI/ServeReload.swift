import IngestServer

/// What SIGHUP re-reads in `stream serve` (docs/operations.md): the shows file and the keys file. Each file is read
/// and checked whole; one that fails is refused (its line, when it has one, in the log) and what is in force stays.
struct ServeReload: Sendable {
    /// The live shows and their file, with `--shows`.
    var shows: (server: ServeShows, file: String)?
    /// The keys the ingest and WHIP allow and their file, with `--keys-file`.
    var keys: (list: KeyList, file: String)?

    /// Whether there is anything to reload.
    var isEmpty: Bool { shows == nil && keys == nil }

    /// Re-reads every file.
    /// - Returns: one log line per file.
    func run() -> [String] {
        var lines: [String] = []
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
        return lines
    }
}
