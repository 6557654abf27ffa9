#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Why a recording file could not be created or written, in plain words (never a raw system error).
public struct RecordingWriteError: Error, Sendable, CustomStringConvertible {
    /// The system error number (`ENOSPC`, `EACCES`, …), or 0 for a failure that is not a system call's.
    public let code: Int32
    /// The cause in plain words, e.g. "the disk is full".
    public let reason: String
    /// What failed and why: "cannot write to PATH: the disk is full".
    public let description: String

    /// Whether the disk (or the user's quota on it) is full: recording can start again once space is freed.
    public var isDiskFull: Bool { code == ENOSPC || code == EDQUOT }

    /// An error with its system code (0 when none), the cause in plain words, and the whole sentence.
    public init(code: Int32, reason: String, description: String) {
        self.code = code
        self.reason = reason
        self.description = description
    }

    /// The error of a failed system call on `path`.
    /// - Parameters:
    ///   - code: `errno` after the call.
    ///   - action: what was being done, e.g. "create".
    public static func system(_ code: Int32, _ action: String, _ path: String) -> RecordingWriteError {
        let reason: String
        switch code {
        case ENOSPC: reason = "the disk is full"
        case EDQUOT: reason = "the disk quota is used up"
        case EROFS: reason = "the disk is read-only"
        case EACCES, EPERM: reason = "permission denied"
        case ENOENT: reason = "the directory does not exist"
        default: reason = String(cString: strerror(code)).lowercased()
        }
        return RecordingWriteError(code: code, reason: reason, description: "cannot \(action) \(path): \(reason)")
    }
}
