#if canImport(Glibc)
import Glibc
#endif
import HTTP

/// A regular file opened for a response: its descriptor, size and modification time (its entity tag). Opening once
/// and reading the same descriptor means one path lookup per request, and the bytes sent are those of the version
/// the tag names even if the path is replaced meanwhile.
final class OpenFile: @unchecked Sendable {
    // @unchecked Sendable: every stored property is immutable; the descriptor is only read with pread (positional,
    // so concurrent reads cannot disturb each other) and closed in deinit, once no one holds the object.
    let descriptor: Int32
    let size: Int
    let modifiedSeconds: Int
    let modifiedNanoseconds: Int
    /// Which file, and which version of it, the descriptor was opened on.
    let identity: Identity

    /// The fields of a file's `stat` that change when the path names another file or the file changes.
    struct Identity: Equatable, Sendable {
        let device: UInt64
        let inode: UInt64
        let size: Int
        let modified: timespec
        let changed: timespec

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int(info.st_size)
            modified = info.st_mtim
            changed = info.st_ctim
        }

        static func == (lhs: Identity, rhs: Identity) -> Bool {
            lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
                && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
                && lhs.changed.tv_sec == rhs.changed.tv_sec && lhs.changed.tv_nsec == rhs.changed.tv_nsec
        }
    }

    /// What opening a path found.
    enum Outcome {
        case file(OpenFile)
        case directory
        case missing
    }

    /// Opens `path` for reading.
    static func open(_ path: String) -> Outcome {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .missing }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            close(descriptor)
            return .missing
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            return .file(OpenFile(descriptor: descriptor, info: info))
        case S_IFDIR:
            close(descriptor)
            return .directory
        default:
            close(descriptor)
            return .missing
        }
    }

    private init(descriptor: Int32, info: stat) {
        self.descriptor = descriptor
        size = Int(info.st_size)
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
        identity = Identity(info)
    }

    deinit {
        close(descriptor)
    }

    /// `"<mtime hex>-<size hex>"`, as nginx builds its ETag.
    var entityTag: HTTPEntityTag {
        HTTPEntityTag(String(entityTagField.dropFirst().dropLast()))
    }

    /// The `ETag` field's value, quotes included, written digit by digit into one string: made for every file
    /// response.
    var entityTagField: String {
        String(unsafeUninitializedCapacity: 40) { buffer in
            var count = 0
            buffer[count] = UInt8(ascii: "\"")
            count += 1
            Self.writeHex(modifiedSeconds, into: buffer, at: &count)
            Self.writeHex(modifiedNanoseconds / 1_000_000, into: buffer, at: &count)
            buffer[count] = UInt8(ascii: "-")
            count += 1
            Self.writeHex(size, into: buffer, at: &count)
            buffer[count] = UInt8(ascii: "\"")
            return count + 1
        }
    }

    /// At most 16 digits (a non-negative Int).
    private static func writeHex(_ value: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at count: inout Int) {
        let digits: StaticString = "0123456789abcdef"
        var shift = 60
        while shift > 0 && (value >> shift) & 0xF == 0 { shift -= 4 }
        while shift >= 0 {
            buffer[count] = digits.utf8Start[(value >> shift) & 0xF]
            count += 1
            shift -= 4
        }
    }

    /// Reads `count` bytes at `offset` onto the end of `bytes` (one buffer for a small response's head and body).
    /// - Returns: false when the file ends early (it shrank) or the read fails; `bytes` is then unchanged.
    func read(_ count: Int, at offset: Int, appendingTo bytes: inout [UInt8]) -> Bool {
        let start = bytes.count
        bytes.reserveCapacity(start + count)
        var done = 0
        var failed = false
        bytes.append(contentsOf: repeatElement(0, count: count))
        bytes.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            while done < count {
                let result = pread(descriptor, base + start + done, count - done, off_t(offset + done))
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else {
                    failed = true
                    return
                }
                done += result
            }
        }
        if failed { bytes.removeLast(count) }
        return !failed
    }

    /// Reads `count` bytes at `offset`; nil when the file ends early (it shrank) or the read fails.
    func read(_ count: Int, at offset: Int) -> [UInt8]? {
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            guard let base = buffer.baseAddress else {
                failed = count > 0
                return
            }
            var done = 0
            while done < count {
                let result = pread(descriptor, base + done, count - done, off_t(offset + done))
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else {
                    failed = true
                    break
                }
                done += result
            }
            initialized = done
        }
        return failed ? nil : bytes
    }
}
