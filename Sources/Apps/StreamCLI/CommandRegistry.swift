/// The top-level commands of `stream`, in the order `stream --help` lists them.
///
/// A new command is one file with a `Command` type, plus one line here.
public enum CommandRegistry {
    /// Every top-level command.
    public static let commands: [any Command] = [
        SettingsCommand(),
        CredentialsCommand(),
        ServeCommand(),
        BroadcastCommand(),
        DemoCommand(),
        InputsCommand(),
        TokenCommand(),
        WatchCommand(),
        LiveCommand(),
        ShowCommand(),
    ]
}

/// The `stream` program itself: a group of the registered commands, plus `--version`.
struct RootCommand: Command {
    let name = "stream"
    let summary = "Broadcast a screen live over RTMP/RTMPS, and receive such streams."
    let discussion = """
        Settings and credentials are kept in $XDG_CONFIG_HOME/stream (default ~/.config/stream).
        Exit codes: 0 success, 1 failure, 2 usage error.
        """
    let options: [OptionSpec] = [.flag("version", help: "Print the version.")]
    let subcommands: [any Command]

    init(subcommands: [any Command] = CommandRegistry.commands) {
        self.subcommands = subcommands
    }
}
