#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Which recordings retention deletes, without I/O: those older than a number of days (by when they were last
/// written), and in each folder (the publishes' recordings; each show's replays) those past the newest N. A file
/// being written is never deleted, nor counted.
struct RecordingRetention: Sendable, Equatable {
    /// A recording on disk.
    struct File: Sendable, Equatable {
        var path: String
        /// Its folder: the group the newest N are kept of.
        var folder: String
        /// When it was last written, in milliseconds since 1970.
        var modified: Int64
    }

    /// Days a recording is kept; nil: no limit.
    var keepDays: Double?
    /// Recordings kept per folder; nil: no limit.
    var keepCount: Int?

    /// Whether anything is ever deleted.
    var isActive: Bool { keepDays != nil || keepCount != nil }

    /// The files to delete now, each with why ("older than 7 days", "past the newest 20 of its folder").
    /// - Parameters:
    ///   - files: the recordings on disk.
    ///   - inUse: paths being written (kept, and not counted).
    ///   - now: milliseconds since 1970.
    func expired(_ files: [File], inUse: Set<String>, now: Int64) -> [(file: File, reason: String)] {
        var deleted: [(file: File, reason: String)] = []
        let finished = files.filter { !inUse.contains($0.path) }
        var kept: [File] = []
        if let keepDays {
            let limit = Int64((keepDays * 86_400_000).rounded())
            for file in finished {
                if now - file.modified > limit {
                    deleted.append((file, "older than \(Self.days(keepDays))"))
                } else {
                    kept.append(file)
                }
            }
        } else {
            kept = finished
        }
        if let keepCount {
            for (_, group) in Dictionary(grouping: kept, by: \.folder) where group.count > keepCount {
                let newestFirst = group.sorted { ($0.modified, $0.path) > ($1.modified, $1.path) }
                for file in newestFirst.dropFirst(keepCount) {
                    deleted.append((file, "past the newest \(keepCount) of its folder"))
                }
            }
        }
        return deleted.sorted { $0.file.path < $1.file.path }
    }

    private static func days(_ value: Double) -> String {
        let text = value == value.rounded() ? String(Int(value)) : String(value)
        return text + (value == 1 ? " day" : " days")
    }
}

/// `stream serve --recordings-keep-days DAYS` and `--recordings-keep N` (docs/operations.md, "Recordings"): old
/// recordings in the recording directory — the publishes' files at its top and each show's replays — are deleted
/// when the server starts and every ten minutes, each with a line saying which and why.
struct ServeRetention: Sendable {
    static let keepDays = OptionSpec.value(
        "recordings-keep-days", valueName: "DAYS",
        help: "Delete recordings and replays last written more than DAYS ago (at start, then every 10 minutes).")
    static let keepCount = OptionSpec.value(
        "recordings-keep", valueName: "N",
        help: "Keep only the newest N publish recordings, and N replays per show; delete the rest.")
    static let options = [keepDays, keepCount]
    /// How often the recording directory is swept.
    static let interval: Duration = .seconds(600)

    let directory: String
    let policy: RecordingRetention
    let inUse: RecordingsInUse
    let console: Console

    /// The policy the flags ask for (no limit without them).
    /// - Throws: `CLIError.usage` for a value that is not a positive number, or a limit without recording.
    static func policy(_ arguments: ParsedArguments) throws -> RecordingRetention {
        var policy = RecordingRetention()
        if let text = arguments.value(keepDays.name) {
            guard let days = Double(text), days.isFinite, days > 0, days <= 36_500 else {
                throw CLIError.usage("--\(keepDays.name) must be a number of days above 0 (at most 36500, 0.5 is "
                                     + "12 hours), not '\(text.prefix(20))'")
            }
            policy.keepDays = days
        }
        if let text = arguments.value(keepCount.name) {
            guard let count = Int(text), (1...1_000_000).contains(count) else {
                throw CLIError.usage("--\(keepCount.name) must be a whole number from 1 to 1000000, not "
                                     + "'\(text.prefix(20))'")
            }
            policy.keepCount = count
        }
        if policy.isActive && arguments.flag("no-record") {
            let flag = arguments.value(keepDays.name) != nil ? keepDays.name : keepCount.name
            throw CLIError.usage("--\(flag) deletes old recordings: it has nothing to do with --no-record")
        }
        return policy
    }

    /// Deletes what the policy says is expired now, with a line per file.
    func sweep(now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) {
        guard policy.isActive else { return }
        for (file, reason) in policy.expired(recordings(), inUse: inUse.paths, now: now) {
            if unlink(file.path) == 0 {
                console.print(ServeCommand.timestamp() + " recordings: deleted \(file.path) (\(reason))")
            } else {
                let why = String(cString: strerror(errno))
                console.print(ServeCommand.timestamp() + " recordings: cannot delete \(file.path): \(why)")
            }
        }
    }

    /// The recordings on disk: `.flv` and `.mp4` files at the top of the directory and in each show's replay
    /// folder (nothing else is looked at, so other files an operator keeps there stay).
    func recordings() -> [RecordingRetention.File] {
        var folders = [directory]
        let replays = directory + "/" + ServeReplays.folder
        for name in (try? FileManager.default.contentsOfDirectory(atPath: replays)) ?? [] where !name.hasPrefix(".") {
            folders.append(replays + "/" + name)
        }
        var files: [RecordingRetention.File] = []
        for folder in folders {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            where !name.hasPrefix(".") && (name.hasSuffix(".flv") || name.hasSuffix(".mp4")) {
                let path = folder + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
                let modified = Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec) / 1_000_000
                files.append(RecordingRetention.File(path: path, folder: folder, modified: modified))
            }
        }
        return files
    }
}
