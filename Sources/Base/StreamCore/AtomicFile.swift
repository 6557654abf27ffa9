#if canImport(Glibc)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small POSIX file helpers for stores that must never leave a half-written or briefly world-readable file.
public enum AtomicFile {
    /// What `read(_:maximumSize:)` found.
    public enum ReadResult: Sendable, Equatable {
        /// There is no file.
        case missing
        /// The file is larger than allowed; it was not read.
        case tooLarge(byteCount: Int)
        /// The file's bytes and its permission bits.
        case contents(Data, permissions: UInt16)
    }

    /// Writes `data` to `url` atomically: a new temporary file in the same directory is created with
    /// `open(O_CREAT|O_EXCL)` and `permissions` (so it is never readable by anyone else, even briefly), written,
    /// flushed with `fsync`, then renamed over `url`. The directory is created (mode 0700) when missing.
    /// - Parameters:
    ///   - data: the complete new contents.
    ///   - url: a file URL.
    ///   - permissions: the mode of the new file, e.g. `0o600` (the process umask can only narrow it).
    /// - Throws: `StreamCoreError` (`.io`) naming the path and the system error.
    public static func write(_ data: Data, to url: URL, permissions: UInt16) throws {
        let directory = url.deletingLastPathComponent()
        try createDirectory(directory)
        let suffix = String(UInt64.random(in: .min ... .max), radix: 16)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).tmp-\(suffix)").path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(permissions))
        guard fd >= 0 else {
            // Name the file the caller asked for, not the temporary one: the reason is the directory's.
            let reason = String(cString: strerror(errno))
            throw StreamCoreError(.io, "cannot write \(url.path): \(reason) (no new file can be made in "
                                    + "\(directory.path))")
        }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            try writeAll(fd, data, path: temporary)
            guard fsync(fd) == 0 else { throw systemError("cannot flush", temporary) }
        } catch {
            close(fd)
            throw error
        }
        close(fd)
        guard rename(temporary, url.path) == 0 else { throw systemError("cannot replace", url.path) }
        renamed = true
        // Make the rename itself durable; failing to sync a directory is not worth failing the write for.
        let directoryFD = open(directory.path, O_RDONLY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// Reads a whole file unless it is larger than `maximumSize`.
    /// - Parameters:
    ///   - url: a file URL.
    ///   - maximumSize: the largest size, in bytes, that is read.
    /// - Returns: `.missing`, `.tooLarge`, or the contents with the file's permission bits.
    /// - Throws: `StreamCoreError` (`.io`) when the file exists but cannot be read.
    public static func read(_ url: URL, maximumSize: Int) throws -> ReadResult {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return .missing }
            throw systemError("cannot open", url.path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw systemError("cannot inspect", url.path) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StreamCoreError(.io, "\(url.path) is not a regular file: move it away")
        }
        let size = Int(info.st_size)
        guard size <= maximumSize else { return .tooLarge(byteCount: size) }
        var bytes = [UInt8](repeating: 0, count: maximumSize + 1)
        var total = 0
        while total < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                systemRead(fd, buffer.baseAddress! + total, buffer.count - total)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw systemError("cannot read", url.path)
            }
            if count == 0 { break }
            total += count
        }
        // The file may have grown between fstat and read.
        guard total <= maximumSize else { return .tooLarge(byteCount: total) }
        return .contents(Data(bytes[0..<total]), permissions: UInt16(info.st_mode & 0o7777))
    }

    /// Creates a directory and its parents, the new ones with mode 0700. An existing directory is kept as is.
    /// - Parameter url: a directory URL.
    /// - Throws: `StreamCoreError` (`.io`) when it cannot be created.
    public static func createDirectory(_ url: URL) throws {
        #if canImport(Glibc)
        var isDirectory = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory { return }
        #else
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue { return }
        #endif
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw StreamCoreError(.io, "cannot create the directory \(url.path): check its parent's permissions")
        }
    }

    /// Removes a file; a missing file is not an error.
    /// - Parameter url: a file URL.
    /// - Throws: `StreamCoreError` (`.io`) when it exists and cannot be removed.
    public static func remove(_ url: URL) throws {
        guard unlink(url.path) == 0 || errno == ENOENT else { throw systemError("cannot remove", url.path) }
    }

    /// Whether something exists at a path (without following a final symbolic link).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    private static func writeAll(_ fd: Int32, _ data: Data, path: String) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let count = systemWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw systemError("cannot write", path)
                }
                offset += count
            }
        }
    }

    static func systemError(_ action: String, _ path: String) -> StreamCoreError {
        let reason = String(cString: strerror(errno))
        return StreamCoreError(.io, "\(action) \(path): \(reason)")
    }
}

// `read`/`write` are shadowed by the static methods above; these name the system calls unambiguously.
@inline(__always)
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.read(fd, buffer, count)
    #else
    return Darwin.read(fd, buffer, count)
    #endif
}

@inline(__always)
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(fd, buffer, count)
    #else
    return Darwin.write(fd, buffer, count)
    #endif
}
