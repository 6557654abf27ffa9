#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Credentials in `credentials.json` inside the configuration directory, created with mode 0600 atomically
/// (`open(O_CREAT|O_EXCL, 0600)` then `rename`), so the key is never readable by another user, even briefly.
public struct FileCredentialStore: CredentialStore {
    /// The file name inside the configuration directory.
    public static let fileName = "credentials.json"
    /// The largest credentials file that is read.
    public static let maximumFileSize = 16 * 1024

    /// The credentials file.
    public let fileURL: URL

    /// Creates a store in a configuration directory.
    /// - Parameter paths: e.g. `try XDGPaths()`.
    public init(paths: XDGPaths) {
        self.fileURL = paths.file(Self.fileName)
    }

    /// The file's path.
    public var location: String { fileURL.path }

    /// Reads the file, refusing one that other users can read or write.
    public func load() throws -> StreamCredentials? {
        switch try AtomicFile.read(fileURL, maximumSize: Self.maximumFileSize) {
        case .missing:
            return nil
        case .tooLarge:
            throw StreamCoreError(.corruptCredentials, "\(location) is too large to be a credentials file: "
                                    + "remove it and set the credentials again")
        case .contents(let data, let permissions):
            guard permissions & 0o077 == 0 else {
                let mode = String(permissions, radix: 8)
                throw StreamCoreError(.insecureCredentialsFile,
                                      "\(location) can be read by other users (mode \(mode)): "
                                        + "run `chmod 600 \(location)` and rotate the stream key")
            }
            return try StreamCredentials.decode(data, location: location)
        }
    }

    /// Writes the file atomically with mode 0600.
    public func save(_ credentials: StreamCredentials) throws {
        try AtomicFile.write(credentials.encoded(), to: fileURL, permissions: 0o600)
    }

    /// Deletes the file.
    public func clear() throws {
        try AtomicFile.remove(fileURL)
    }
}
