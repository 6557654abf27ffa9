/// A command failure with its exit code; the message goes to stderr and never contains a stream key.
public struct CLIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The process exit code: `ExitCode.usage` (2) or `ExitCode.failure` (1).
    public let exitCode: Int32
    /// What went wrong and what to do.
    public let message: String
    /// For usage errors, the command whose `--help` explains the right usage (filled in by the dispatcher).
    public var helpCommand: String?

    /// Creates an error.
    /// - Parameters:
    ///   - exitCode: 1 or 2.
    ///   - message: what went wrong and what to do.
    public init(exitCode: Int32, message: String, helpCommand: String? = nil) {
        self.exitCode = exitCode
        self.message = message
        self.helpCommand = helpCommand
    }

    /// The command line was wrong (exit 2).
    public static func usage(_ message: String) -> CLIError {
        CLIError(exitCode: ExitCode.usage, message: message)
    }

    /// The command was right but could not be carried out (exit 1).
    public static func failure(_ message: String) -> CLIError {
        CLIError(exitCode: ExitCode.failure, message: message)
    }

    /// The message.
    public var description: String { message }
}

/// The exit codes of `stream`.
public enum ExitCode {
    /// Success.
    public static let success: Int32 = 0
    /// The command failed (I/O, network, unreadable state).
    public static let failure: Int32 = 1
    /// The command line was wrong: unknown command or option, missing or invalid value.
    public static let usage: Int32 = 2
}
