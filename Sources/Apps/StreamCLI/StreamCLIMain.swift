#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import StreamCore

/// The entry point of the `stream` executable, kept in a library so tests can run it in-process.
public enum StreamCLIMain {
    /// The version printed by `stream --version`.
    public static let version = "0.1.0"

    /// Runs `stream` with the process's standard streams and environment, after the process-wide signal set-up
    /// (SIGPIPE ignored: a closed output pipe never ends a broadcast or a server).
    /// - Parameter args: the full command line; `args[0]` is the program name.
    /// - Returns: the exit code (0 ok, 1 failure, 2 usage).
    public static func run(_ args: [String]) -> Int32 {
        ProcessSignals.configure()
        return run(args, console: .standard, environment: ProcessInfo.processInfo.environment)
    }

    /// Runs `stream` with an injected console and environment.
    /// - Parameters:
    ///   - args: the full command line; `args[0]` is the program name.
    ///   - console: where output goes and input comes from.
    ///   - environment: the environment (e.g. with `XDG_CONFIG_HOME` pointing at a temporary directory).
    ///   - commands: the top-level commands (the registry by default).
    /// - Returns: the exit code.
    public static func run(_ args: [String], console: Console, environment: [String: String],
                           commands: [any Command] = CommandRegistry.commands) -> Int32 {
        let root = RootCommand(subcommands: commands)
        let context = CommandContext(console: console, environment: environment, commandPath: ["stream"])
        do {
            return try dispatch(Array(args.dropFirst()), to: root, context: context, isRoot: true)
        } catch let error as CLIError {
            console.printError("stream: \(error.message)")
            if let help = error.helpCommand {
                console.printError("Run '\(help) --help' for usage.")
            }
            return error.exitCode
        } catch let error as IngestURLError {
            console.printError("stream: \(error.message)")
            return ExitCode.usage
        } catch let error as CredentialsError {
            console.printError("stream: \(error.message)")
            return ExitCode.usage
        } catch {
            console.printError("stream: \(error)")
            return ExitCode.failure
        }
    }

    private static func dispatch(_ arguments: [String], to command: any Command, context: CommandContext,
                                 isRoot: Bool) throws -> Int32 {
        let path = context.commandPath.joined(separator: " ")
        do {
            if command.subcommands.isEmpty {
                let parsed = try ArgumentParser.parse(arguments, options: command.options)
                if parsed.helpRequested {
                    context.console.writeOutput(HelpFormatter.help(for: command, path: context.commandPath))
                    return ExitCode.success
                }
                return try command.run(parsed, context: context)
            }
            let parsed = try ArgumentParser.parse(arguments, options: command.options, stopAtFirstPositional: true)
            if parsed.helpRequested {
                context.console.writeOutput(HelpFormatter.help(for: command, path: context.commandPath))
                return ExitCode.success
            }
            if isRoot && parsed.flag("version") {
                context.console.print("stream \(version)")
                return ExitCode.success
            }
            guard let name = parsed.positionals.first else {
                let names = command.subcommands.map(\.name).joined(separator: ", ")
                throw CLIError.usage("missing command: one of \(names)")
            }
            guard let subcommand = command.subcommands.first(where: { $0.name == name }) else {
                throw CLIError.usage("unknown command '\(name.prefix(40))': expected one of "
                                        + command.subcommands.map(\.name).joined(separator: ", "))
            }
            var subcontext = context
            subcontext.commandPath.append(name)
            return try dispatch(parsed.remainder, to: subcommand, context: subcontext, isRoot: false)
        } catch var error as CLIError where error.exitCode == ExitCode.usage && error.helpCommand == nil {
            error.helpCommand = path
            throw error
        }
    }
}
