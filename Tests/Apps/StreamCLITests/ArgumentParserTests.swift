import Testing
@testable import StreamCLI

@Suite struct ArgumentParserTests {
    static let options: [OptionSpec] = [
        .flag("json", short: "j", help: "JSON"),
        .value("port", short: "p", valueName: "PORT", help: "port"),
        .value("name", valueName: "NAME", help: "name"),
    ]

    private func parse(_ arguments: [String]) throws(CLIError) -> ParsedArguments {
        try ArgumentParser.parse(arguments, options: Self.options)
    }

    @Test func positionalsFlagsAndValuesInAnyOrder() throws {
        let parsed = try parse(["a", "--port", "1935", "b", "--json", "--name=x=y", "c"])
        #expect(parsed.positionals == ["a", "b", "c"])
        #expect(parsed.value("port") == "1935")
        #expect(parsed.value("name") == "x=y")
        #expect(parsed.flag("json"))
        #expect(!parsed.helpRequested)
    }

    @Test func shortAliases() throws {
        let parsed = try parse(["-j", "-p", "80"])
        #expect(parsed.flag("json"))
        #expect(parsed.value("port") == "80")
    }

    @Test func repeatedValuesAreKeptInOrderAndTheLastWins() throws {
        let parsed = try parse(["--port", "1", "--port=2"])
        #expect(parsed.values["port"] == ["1", "2"])
        #expect(parsed.value("port") == "2")
    }

    @Test func emptyInlineValueIsAValue() throws {
        #expect(try parse(["--name="]).value("name") == "")
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try parse(["--json", "--", "--port", "-h", "--help"])
        #expect(parsed.positionals == ["--port", "-h", "--help"])
        #expect(!parsed.helpRequested)
    }

    @Test func loneDashAndNegativeNumbersArePositionals() throws {
        #expect(try parse(["-", "-5", "-0.25"]).positionals == ["-", "-5", "-0.25"])
    }

    @Test(arguments: [["--help"], ["-h"], ["a", "--help"], ["--port", "1", "-h"], ["--bogus", "--help"],
                      ["--help", "--port"]])
    func helpAnywhereBeforeDoubleDashWinsOverErrors(_ arguments: [String]) throws {
        #expect(try parse(arguments).helpRequested)
    }

    @Test(arguments: [
        (["--bogus"], "unknown option --bogus"),
        (["-x"], "unknown option -x"),
        (["-jp"], "unknown option -jp"),
        (["--port"], "option --port needs a value (PORT)"),
        (["--port", "--json"], "option --port needs a value (PORT)"),
        (["--json=yes"], "option --json takes no value"),
    ])
    func usageErrors(_ arguments: [String], _ message: String) {
        #expect(throws: CLIError.usage(message)) { try ArgumentParser.parse(arguments, options: Self.options) }
    }

    @Test func stopAtFirstPositionalLeavesTheRestForTheSubcommand() throws {
        let parsed = try ArgumentParser.parse(["--json", "set", "--port", "1", "--help"], options: Self.options,
                                              stopAtFirstPositional: true)
        #expect(parsed.positionals == ["set"])
        #expect(parsed.remainder == ["--port", "1", "--help"])
        #expect(parsed.flag("json"))
        #expect(!parsed.helpRequested)
    }

    @Test func stopAtFirstPositionalStillSeesHelpBeforeTheSubcommand() throws {
        let parsed = try ArgumentParser.parse(["--help", "set"], options: [], stopAtFirstPositional: true)
        #expect(parsed.helpRequested)
    }

    @Test func emptyArguments() throws {
        #expect(try parse([]) == ParsedArguments())
    }
}
