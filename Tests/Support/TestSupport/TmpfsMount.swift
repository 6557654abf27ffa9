import Foundation

/// A small tmpfs mounted for one test (a disk that fills up, a read-only configuration directory), unmounted and
/// removed when released.
///
/// Mounting needs root, which CI has (it runs as root). Where it is refused the initializer throws a failure
/// saying so: the test fails with that reason, it is never skipped.
public final class TmpfsMount: @unchecked Sendable {
    // Safe: `path` and `sizeBytes` are immutable after init.
    /// Where it is mounted.
    public let path: String
    /// Its size.
    public let sizeBytes: Int

    /// Mounts a tmpfs of `sizeBytes` on a new temporary directory.
    /// - Throws: ``Subprocess/Failure`` naming the reason when `mount` refuses (not root, no mount namespace).
    public init(sizeBytes: Int) throws {
        let directory = try TemporaryDirectory("tmpfs")
        let target = directory.path + "/mount"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        let result = try Subprocess.run("mount", ["-t", "tmpfs", "-o", "size=\(sizeBytes),mode=0755", "tmpfs", target],
                                        timeout: 10)
        guard result.status == 0 else {
            throw Subprocess.Failure(description: "cannot mount a \(sizeBytes >> 10) kB tmpfs at \(target) "
                                        + "(uid \(getuid())): this test needs root, as CI runs it: "
                                        + result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        path = target
        self.sizeBytes = sizeBytes
        holder = directory
    }

    private let holder: TemporaryDirectory

    /// A path inside the mount.
    public func file(_ name: String) -> String { "\(path)/\(name)" }

    /// Makes the file system read-only (`readOnly`) or writable again; even root cannot write to it while
    /// read-only.
    public func remount(readOnly: Bool) throws {
        let result = try Subprocess.run("mount", ["-o", "remount,\(readOnly ? "ro" : "rw")", path], timeout: 10)
        guard result.status == 0 else {
            throw Subprocess.Failure(description: "cannot remount \(path): \(result.stderr)")
        }
    }

    /// The bytes still free on it.
    public var freeBytes: Int {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return 0 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// Writes a file of zeros until only about `bytes` stay free (a disk nearly full), returning its path.
    @discardableResult
    public func fill(leaving bytes: Int, name: String = "filler") throws -> String {
        let filler = file(name)
        let size = max(0, freeBytes - bytes)
        guard FileManager.default.createFile(atPath: filler, contents: Data(count: size)) else {
            throw Subprocess.Failure(description: "cannot write \(size) bytes of filler to \(filler)")
        }
        return filler
    }

    deinit {
        _ = try? Subprocess.run("mount", ["-o", "remount,rw", path], timeout: 10)
        if (try? Subprocess.run("umount", [path], timeout: 10))?.status != 0 {
            _ = try? Subprocess.run("umount", ["-l", path], timeout: 10)
        }
    }
}
