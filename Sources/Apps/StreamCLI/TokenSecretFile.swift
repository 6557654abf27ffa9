#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Identity

/// Reads the token secret from its file, which must be private: a regular file that only its owner can read
/// (mode 0600 or stricter), as `stream serve --token-secret-file` and `stream token --secret-file` require.
enum TokenSecretFile {
    /// The largest secret file read.
    static let maximumSize = 4096

    /// Reads and checks a secret file.
    /// - Parameters:
    ///   - path: the file.
    ///   - flag: the option that named it, for messages.
    /// - Throws: `CLIError` (usage) when the file is missing, readable by others, empty or too short.
    static func read(_ path: String, flag: String) throws -> TokenSecret {
        let data = try privateContents(path, flag: flag, what: "a token secret")
        do {
            return try TokenSecret(fileContents: data)
        } catch {
            throw CLIError.usage("\(flag): \(error.reason)")
        }
    }

    /// Reads a file that must be private (mode 0600 or stricter), such as a secret.
    /// - Parameter what: what the file holds, for the message that asks for `chmod 600`.
    /// - Throws: `CLIError` (usage) when the file is missing, not regular, readable by others or too large.
    static func privateContents(_ path: String, flag: String, what: String) throws(CLIError) -> [UInt8] {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw CLIError.usage("\(flag): cannot read \(path): \(String(cString: strerror(errno)))")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw CLIError.usage("\(flag): \(path) is not a regular file")
        }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw CLIError.usage("\(flag): \(path) can be read by others (mode \(String(mode, radix: 8))): "
                                    + "run `chmod 600 \(path)`; \(what) must be private")
        }
        guard status.st_size <= maximumSize, let data = FileManager.default.contents(atPath: path) else {
            throw CLIError.usage("\(flag): cannot read \(path), or it is larger than \(maximumSize) bytes")
        }
        return Array(data)
    }
}
