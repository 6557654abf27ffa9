import StreamCore

/// A `stream` subcommand. A command either has `subcommands` (a group such as `settings`) or implements `run`.
///
/// To add a command: write one file with a type conforming to `Command`, and list it in
/// `CommandRegistry.commands`.
public protocol Command: Sendable {
    /// The word that selects the command, e.g. `settings`.
    var name: String { get }
    /// One line shown in the parent's command list.
    var summary: String { get }
    /// The positionals in the usage line, e.g. `KEY VALUE` (empty for none).
    var argumentsSynopsis: String { get }
    /// More help, shown after the summary (may be several lines).
    var discussion: String { get }
    /// The options the command accepts (`-h`/`--help` are implicit).
    var options: [OptionSpec] { get }
    /// The subcommands of a group; empty for a command that runs.
    var subcommands: [any Command] { get }

    /// Runs the command.
    /// - Parameters:
    ///   - arguments: the parsed arguments after the command's name.
    ///   - context: the console, environment and stores.
    /// - Returns: the exit code (normally `ExitCode.success`).
    /// - Throws: `CLIError` for usage errors and failures; other errors exit with 1 and their description.
    func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32
}

extension Command {
    /// No extra help by default.
    public var discussion: String { "" }
    /// No options by default.
    public var options: [OptionSpec] { [] }
    /// No subcommands by default.
    public var subcommands: [any Command] { [] }
    /// No positionals by default.
    public var argumentsSynopsis: String { "" }

    /// A group run without a subcommand is a usage error.
    public func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        throw CLIError.usage("missing command: one of \(subcommands.map(\.name).joined(separator: ", "))")
    }
}

/// What a running command can use: the console, the environment, and the stores built from it.
public struct CommandContext: Sendable {
    /// Standard streams (captured in tests).
    public var console: Console
    /// The process environment (`XDG_CONFIG_HOME` decides where files go).
    public var environment: [String: String]
    /// The words that led to this command, e.g. `["stream", "settings", "set"]`.
    public var commandPath: [String]

    /// Creates a context.
    public init(console: Console, environment: [String: String], commandPath: [String] = ["stream"]) {
        self.console = console
        self.environment = environment
        self.commandPath = commandPath
    }

    /// The configuration directory (`$XDG_CONFIG_HOME/stream` or `~/.config/stream`).
    /// - Throws: `CLIError` (exit 1) when neither variable is usable.
    public func paths() throws -> XDGPaths {
        do {
            return try XDGPaths(environment: environment)
        } catch {
            throw CLIError.failure("\(error)")
        }
    }

    /// The settings store of the CLI: `stream.settings.v1.json` in the configuration directory, on every platform.
    public func settingsStore() throws -> SettingsStore {
        SettingsStore.file(paths: try paths())
    }

    /// The credential store of the CLI: `credentials.json` (mode 0600) in the configuration directory.
    public func credentialStore() throws -> any CredentialStore {
        FileCredentialStore(paths: try paths())
    }

    /// Prints a warning to stderr, prefixed with `stream: warning:`.
    public func warn(_ message: String) {
        console.printError("stream: warning: \(message)")
    }
}
