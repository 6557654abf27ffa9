#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Where the Linux (and command-line) backends keep their files: `$XDG_CONFIG_HOME/stream`, or `~/.config/stream`.
public struct XDGPaths: Sendable, Equatable {
    /// The name of the application's directory inside the configuration home.
    public static let applicationDirectoryName = "stream"

    /// The directory holding the settings blob and the credentials file.
    public let configDirectory: URL

    /// Uses an explicit directory (tests, custom installs).
    /// - Parameter configDirectory: the directory that holds Stream's files (not the XDG base).
    public init(configDirectory: URL) {
        self.configDirectory = configDirectory
    }

    /// Resolves the directory from an environment, following the XDG Base Directory rules.
    ///
    /// `XDG_CONFIG_HOME` is used when it is an absolute path; an empty or relative value is ignored, as the
    /// specification requires. Otherwise `$HOME/.config` is used.
    /// - Parameter environment: the process environment (injectable for tests).
    /// - Throws: `StreamCoreError` (`.noConfigDirectory`) when neither variable gives an absolute path.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        configDirectory = try Self.directory(environment, variable: "XDG_CONFIG_HOME", underHome: ".config",
                                             what: "configuration")
    }

    /// Stream's data directory (recordings it makes on its own, such as `stream demo`'s): `$XDG_DATA_HOME/stream`
    /// when that is an absolute path, else `$HOME/.local/share/stream`, following the XDG Base Directory rules.
    /// - Parameter environment: the process environment.
    /// - Throws: `StreamCoreError` (`.noConfigDirectory`) when neither variable gives an absolute path.
    public static func dataDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> URL {
        try directory(environment, variable: "XDG_DATA_HOME", underHome: ".local/share", what: "data")
    }

    /// `$variable/stream` when the variable is an absolute path (an empty or relative value is ignored, as the
    /// specification requires), else `$HOME/underHome/stream`.
    private static func directory(_ environment: [String: String], variable: String, underHome: String,
                                  what: String) throws -> URL {
        let base: String
        if let xdg = environment[variable], xdg.hasPrefix("/") {
            base = xdg
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = home + "/" + underHome
        } else {
            throw StreamCoreError(.noConfigDirectory, "cannot find a \(what) directory: set \(variable) or HOME to "
                                    + "an absolute path")
        }
        return URL(fileURLWithPath: base, isDirectory: true)
            .appendingPathComponent(applicationDirectoryName, isDirectory: true)
    }

    /// The path of a file inside the configuration directory.
    /// - Parameter name: a plain file name (no slashes).
    public func file(_ name: String) -> URL {
        configDirectory.appendingPathComponent(name, isDirectory: false)
    }
}
