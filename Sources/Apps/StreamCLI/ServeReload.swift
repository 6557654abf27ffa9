#if canImport(Glibc)
import FoundationEssentials
#else
import Foundation
#endif
import IngestServer

/// What SIGHUP (or `stream serve reload`) re-reads in `stream serve` (docs/operations.md): the config file, the shows
/// file, the keys file and the webhook secret's file. Each file is read and checked whole; one that fails is refused
/// (its line, when it has one, in the log) and what is in force stays.
struct ServeReload: Sendable {
    /// The config file, with `--config`: its webhook settings apply; other changed keys need a restart.
    var config: ServeConfigReload?
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

    /// Re-reads every file: the config file first, since it may name another webhook secret's file.
    func run() -> Outcome {
        var lines: [String] = []
        if config == nil && shows == nil && keys == nil && webhooks == nil {
            lines.append("reload: nothing to re-read (no --config, --shows, --keys-file or --webhook)")
        }
        if let config { lines.append(config.run(webhooks: webhooks)) }
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

/// `--config FILE` read again by a reload. The file is parsed and checked whole, as at start; of what it gives, the
/// webhook settings (`webhook`, `webhook-secret-file`) take effect at once unless the command line gave them. Any
/// other key whose value differs from the start's is named in the log line as needing a restart, and keeps its
/// start value.
struct ServeConfigReload: Sendable {
    /// The keys a reload applies.
    static let applied: Set<String> = ["webhook", "webhook-secret-file"]

    /// The file as it was read at start.
    var atStart: ServeConfigFile
    /// The command line, whose options win over the file's.
    var commandLine: ParsedArguments
    /// What `stream serve` accepts.
    var options: [OptionSpec]

    /// Re-reads the file and applies it. Returns the log line.
    func run(webhooks: ServeWebhooks?) -> String {
        let path = atStart.path
        let fresh: ServeConfigFile
        do throws(CLIError) {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CLIError.usage("--config: cannot read \(path)")
            }
            fresh = try ServeConfigFile.parse(Array(data), path: path, options: options)
        } catch {
            return "config: reload refused: \(error.message); the settings in force stay"
        }
        let changed = Self.changedKeys(from: atStart, to: fresh, commandLine: commandLine)
        var restart = changed.filter { !Self.applied.contains($0) }
        var changes: [String] = []
        let appliedChanged = changed.contains { Self.applied.contains($0) }
        if appliedChanged, let webhooks {
            let settings = fresh.merged(under: commandLine)
            if let url = settings.value("webhook"), let secretFile = settings.value("webhook-secret-file") {
                do throws(CLIError) {
                    changes = try webhooks.reconfigure(url: url, secretFile: secretFile)
                } catch {
                    let located = fresh.locating(error, commandLine: commandLine)
                    return "config: reload refused: \(located.message); the settings in force stay"
                }
            } else {
                restart += changed.filter { Self.applied.contains($0) }  // turning webhooks off
            }
        } else if appliedChanged {
            restart += changed.filter { Self.applied.contains($0) }  // turning webhooks on
        }
        var line = "config: reloaded \(path): "
            + (changes.isEmpty ? "no setting a reload applies changed" : changes.joined(separator: "; "))
        if !restart.isEmpty {
            line += "; changed since the start, and applied only by a restart: "
                + restart.sorted().joined(separator: ", ")
        }
        return line
    }

    /// The keys whose value or flag differs between two readings of the file, leaving out those the command line
    /// gives (it wins over both).
    static func changedKeys(from old: ServeConfigFile, to new: ServeConfigFile,
                            commandLine: ParsedArguments) -> [String] {
        let keys = Set(old.arguments.values.keys).union(new.arguments.values.keys)
            .union(old.arguments.flags).union(new.arguments.flags)
        return keys.filter { key in
            guard commandLine.values[key] == nil && !commandLine.flags.contains(key) else { return false }
            return old.arguments.values[key] != new.arguments.values[key]
                || old.arguments.flags.contains(key) != new.arguments.flags.contains(key)
        }.sorted()
    }
}
