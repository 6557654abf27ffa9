import TestSupport
import Testing
@testable import StreamCLI

@Suite struct StreamCLIMainTests {
    @Test(arguments: [["--help"], ["-h"], ["settings", "--help"], ["settings", "show", "--help"],
                      ["settings", "set", "--help"], ["settings", "set", "fps", "--help"], ["settings", "reset", "-h"],
                      ["credentials", "--help"], ["credentials", "set", "--help"], ["credentials", "show", "--help"],
                      ["credentials", "clear", "--help"], ["settings", "--help", "bogus"]])
    func everyCommandHasHelp(_ arguments: [String]) throws {
        let directory = try TemporaryConfigHome()
        let result = runCLI(arguments, in: directory)
        #expect(result.exitCode == 0)
        #expect(result.output.hasPrefix("Usage: stream"))
        #expect(result.output.contains("-h, --help"))
        #expect(result.error.isEmpty)
        // Help never touches the configuration directory.
        #expect(try directory.streamFiles().isEmpty)
    }

    @Test func topLevelHelpListsCommands() throws {
        let result = runCLI(["--help"], in: try TemporaryConfigHome())
        #expect(result.output.contains("settings"))
        #expect(result.output.contains("credentials"))
        #expect(result.output.contains("--version"))
    }

    @Test func subcommandHelpShowsItsPathAndSynopsis() throws {
        let result = runCLI(["settings", "set", "--help"], in: try TemporaryConfigHome())
        #expect(result.output.hasPrefix("Usage: stream settings set KEY VALUE"))
        for key in SettingsKey.allCases {
            #expect(result.output.contains(key.rawValue))
        }
    }

    @Test func version() throws {
        let result = runCLI(["--version"], in: try TemporaryConfigHome())
        #expect(result.exitCode == 0)
        #expect(result.output == "stream \(StreamCLIMain.version)\n")
    }

    @Test(arguments: [
        ([String](), "missing command"),
        (["bogus"], "unknown command 'bogus'"),
        (["--bogus"], "unknown option --bogus"),
        (["settings"], "missing command"),
        (["settings", "frobnicate"], "unknown command 'frobnicate'"),
        (["settings", "show", "extra"], "takes no arguments"),
        (["settings", "show", "--bogus"], "unknown option --bogus"),
    ])
    func usageErrorsExitWith2OnStderr(_ arguments: [String], _ message: String) throws {
        let result = runCLI(arguments, in: try TemporaryConfigHome())
        #expect(result.exitCode == 2)
        #expect(result.output.isEmpty)
        #expect(result.error.hasPrefix("stream: "))
        #expect(result.error.contains(message))
        #expect(result.error.contains("--help' for usage"))
    }

    @Test func aMissingConfigurationHomeIsAFailure() {
        let capture = ConsoleCapture()
        let code = StreamCLIMain.run(["stream", "settings", "show"], console: capture.console, environment: [:])
        #expect(code == 1)
        #expect(capture.error.contains("XDG_CONFIG_HOME"))
    }

    @Test func extraCommandsPlugIn() throws {
        struct Echo: Command {
            let name = "echo"
            let summary = "Print the arguments."
            let options: [OptionSpec] = [.flag("loud", help: "Upper-case.")]
            func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
                let text = arguments.positionals.joined(separator: " ")
                context.console.print(arguments.flag("loud") ? text.uppercased() : text)
                return 0
            }
        }
        let capture = ConsoleCapture()
        let code = StreamCLIMain.run(["stream", "echo", "--loud", "hi", "there"], console: capture.console,
                                     environment: [:], commands: [Echo()])
        #expect(code == 0)
        #expect(capture.output == "HI THERE\n")
    }
}
