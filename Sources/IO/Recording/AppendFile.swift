#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// How a recording file is created.
public enum RecordingFileCreation: Sendable {
    /// Fail when the file exists (a server naming its own files; a path the user chose, never overwritten).
    case exclusive
    /// Replace what the file held.
    case truncate
}

/// A file written by appending whole records (an FLV tag, an MP4 fragment): a write that fails (a full disk) cuts
/// the file back to the end of the last whole record, so what is on disk always plays to its end. Bytes already
/// written can be patched in place (no new space needed: it works on a full disk too).
final class AppendFile {
    let path: String
    private var fd: Int32
    /// Bytes in the file: everything up to the last whole record.
    private(set) var size = 0

    /// Creates the file.
    /// - Throws: `RecordingWriteError` ("cannot create PATH: the directory does not exist").
    init(path: String, creation: RecordingFileCreation) throws(RecordingWriteError) {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (creation == .exclusive ? O_EXCL : O_TRUNC)
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else { throw .system(errno, "create", path) }
        self.path = path
        self.fd = fd
    }

    deinit {
        if fd >= 0 { _ = closeDescriptor(fd) }
    }

    /// Whether the file is still open.
    var isOpen: Bool { fd >= 0 }

    /// Writes `bytes` at the end of the file, whole or not at all.
    /// - Throws: `RecordingWriteError` after cutting the file back to its previous end.
    func append(_ bytes: [UInt8]) throws(RecordingWriteError) {
        guard fd >= 0 else {
            throw RecordingWriteError(code: EBADF, reason: "the file is closed",
                                      description: "cannot write to \(path): the file is closed")
        }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                pwrite(fd, buffer.baseAddress! + written, buffer.count - written, off_t(size + written))
            }
            if count > 0 {
                written += count
                continue
            }
            let code = count < 0 ? errno : ENOSPC
            if code == EINTR { continue }
            if written > 0 { _ = ftruncate(fd, off_t(size)) }
            throw .system(code, "write to", path)
        }
        size += written
    }

    /// Overwrites bytes already in the file.
    func patch(_ bytes: [UInt8], at offset: Int) {
        guard fd >= 0, offset + bytes.count <= size else { return }
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, off_t(offset)) }
    }

    /// Closes the file; with `remove`, deletes it too.
    func close(remove: Bool) {
        guard fd >= 0 else { return }
        _ = closeDescriptor(fd)
        fd = -1
        if remove { unlink(path) }
    }
}

/// `close(2)`, named apart from ``AppendFile/close(remove:)``.
private func closeDescriptor(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(fd)
    #else
    Darwin.close(fd)
    #endif
}
