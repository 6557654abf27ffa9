#if canImport(Glibc)
import Glibc
#endif
import Locking

/// The descriptors of the files a ``HTTPRouter/files(_:directory:)`` route served lately, reused while their path
/// still names the same file: one `stat` per request instead of `open`, `fstat` and `close` (nginx's
/// `open_file_cache`, with every request validated).
///
/// A cached descriptor is reused only if the path's `stat` shows the same device, inode, size, modification and
/// change times (a rewrite, a replacement by rename or a `chmod` changes one of them), so a response is exactly what
/// opening the path afresh would give. At most ``capacity`` descriptors are kept; when a new file finds the cache
/// full, every entry is dropped (a descriptor still being sent stays open until its response ends). A deleted file's
/// descriptor is released at the latest when the cache fills or its path is asked for again.
final class OpenFileCache: Sendable {
    /// The most descriptors kept.
    let capacity: Int
    private let entries = Locked<[String: OpenFile]>([:])

    /// Creates an empty cache.
    init(capacity: Int = 32) {
        self.capacity = capacity
    }

    /// What opening `path` finds: the cached descriptor if the path still names its file, else a new one.
    func open(_ path: String) -> OpenFile.Outcome {
        var info = stat()
        guard stat(path, &info) == 0 else {
            entries.withLock { _ = $0.removeValue(forKey: path) }
            return .missing
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            entries.withLock { _ = $0.removeValue(forKey: path) }
            return OpenFile.open(path)
        }
        let identity = OpenFile.Identity(info)
        if let cached = entries.withLock({ $0[path] }), cached.identity == identity { return .file(cached) }
        let outcome = OpenFile.open(path)
        entries.withLock { entries in
            guard case .file(let file) = outcome else {
                entries[path] = nil
                return
            }
            if entries[path] == nil && entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[path] = file
        }
        return outcome
    }
}
