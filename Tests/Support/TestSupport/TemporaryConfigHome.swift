import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real configuration home (XDG_CONFIG_HOME) under the system temporary directory, removed when released; the
/// data directory (XDG_DATA_HOME) and HOME of a `stream` run are inside it too.
///
/// Every test that runs `stream` passes ``environment`` (or ``environment(in:)``): without it the program inherits the
/// test process's HOME, the real user's, and writes there what no option redirected — `serve`'s recordings without
/// `--record-dir` go to `~/.local/share/stream/recordings`, its shows without `--data-dir` to
/// `~/.local/share/stream`, `demo`'s recording without `--output` to `~/.local/share/stream/demo`, settings and
/// credentials to `~/.config/stream`. It is passed even beside those options, so that a test whose option stops
/// being honoured fails in its own directory rather than writing into the user's.
public final class TemporaryConfigHome {
    public let url: URL

    public init() throws {
        var template = Array((NSTemporaryDirectory() + "/stream-config-tests-XXXXXX").utf8CString)
        guard let pointer = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CocoaError(.fileWriteUnknown)
        }
        url = URL(fileURLWithPath: String(cString: pointer), isDirectory: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// An environment whose XDG configuration home is this directory, with the data home and HOME inside it.
    public var environment: [String: String] {
        Self.environment(in: url.path).merging(["XDG_CONFIG_HOME": url.path]) { $1 }
    }

    /// An environment that keeps a run of `stream` inside `directory` (a test's own temporary directory): the
    /// configuration home, data home and HOME are its `config`, `data` and `home` (made by whoever writes there,
    /// removed with `directory`). PATH is this process's, so that it can also replace a whole environment.
    public static func environment(in directory: String) -> [String: String] {
        ["XDG_CONFIG_HOME": directory + "/config", "XDG_DATA_HOME": directory + "/data", "HOME": directory + "/home",
         "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
    }

    /// The `stream` directory inside it.
    public var streamDirectory: URL { url.appendingPathComponent("stream", isDirectory: true) }

    /// The file names in the `stream` directory, sorted.
    public func streamFiles() throws -> [String] {
        guard FileManager.default.fileExists(atPath: streamDirectory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: streamDirectory.path).sorted()
    }
}

/// The permission bits of a file, read with `stat(2)`.
public func permissions(of path: String) -> UInt16? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return UInt16(info.st_mode & 0o7777)
}
