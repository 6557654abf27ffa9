#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Stores each blob as `<key>.json` in a directory (`$XDG_CONFIG_HOME/stream` by default), written atomically
/// with mode 0600. A set-aside blob becomes `<key>.corrupt-<stamp>.json` next to it.
public struct FileBlobStorage: SharedBlobStorage {
    /// The directory holding the files.
    public let directory: URL

    /// Creates a storage over a directory (created on first write).
    /// - Parameter directory: e.g. `XDGPaths().configDirectory`.
    public init(directory: URL) {
        self.directory = directory
    }

    /// The file holding the blob of a key.
    public func fileURL(key: String) -> URL {
        directory.appendingPathComponent("\(key).json", isDirectory: false)
    }

    /// Reads `<key>.json`.
    public func read(key: String, maximumSize: Int) throws -> BlobReadResult {
        switch try AtomicFile.read(fileURL(key: key), maximumSize: maximumSize) {
        case .missing: return .missing
        case .tooLarge(let byteCount): return .tooLarge(byteCount: byteCount)
        case .contents(let data, _): return .data(data)
        }
    }

    /// Replaces `<key>.json` atomically (mode 0600).
    public func write(_ data: Data, key: String) throws {
        try AtomicFile.write(data, to: fileURL(key: key), permissions: 0o600)
    }

    /// Renames `<key>.json` to `<key>.corrupt-<stamp>.json` (adding `-2`, `-3`, … if that name is taken).
    public func setAside(key: String, stamp: String) throws -> String {
        let source = fileURL(key: key)
        var attempt = 1
        while true {
            let suffix = attempt == 1 ? "" : "-\(attempt)"
            let target = directory.appendingPathComponent("\(key).corrupt-\(stamp)\(suffix).json")
            if !AtomicFile.exists(target.path) {
                guard rename(source.path, target.path) == 0 else {
                    throw AtomicFile.systemError("cannot move aside", source.path)
                }
                return target.path
            }
            attempt += 1
        }
    }

    /// The path of `<key>.json`.
    public func location(key: String) -> String { fileURL(key: key).path }
}
