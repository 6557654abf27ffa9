import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real configuration home (XDG_CONFIG_HOME) under the system temporary directory, removed when released.
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

    /// An environment whose XDG configuration home is this directory.
    public var environment: [String: String] { ["XDG_CONFIG_HOME": url.path, "HOME": "/nonexistent-home"] }

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
