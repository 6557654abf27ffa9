import Foundation
import TestSupport
import Testing
@testable import StreamCLI

/// `stream serve --config FILE`: from a JSON object to the options, and the command line over it.
@Suite struct ServeConfigFileTests {
    private let options = ServeCommand().options

    private func parse(_ text: String) throws(CLIError) -> ServeConfigFile {
        try ServeConfigFile.parse(Array(text.utf8), path: "serve.json", options: options)
    }

    private func usageMessage(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            #expect(error.exitCode == ExitCode.usage)
            return error.message
        }
    }

    @Test func everyOptionOfServeHelpHasAKey() throws {
        let help = HelpFormatter.help(for: ServeCommand(), path: ["stream", "serve"])
        var members: [String] = []
        for spec in options where spec.name != "config" {
            #expect(help.contains("--\(spec.name)"), "\(spec.name) is not in stream serve --help")
            members.append(spec.takesValue ? "\"\(spec.name)\": \"v-\(spec.name)\"" : "\"\(spec.name)\": true")
        }
        let file = try parse("{\n" + members.joined(separator: ",\n") + "\n}")
        for (position, spec) in options.filter({ $0.name != "config" }).enumerated() {
            if spec.takesValue {
                #expect(file.arguments.values[spec.name] == ["v-\(spec.name)"])
            } else {
                #expect(file.arguments.flag(spec.name))
            }
            #expect(file.lines[spec.name] == position + 2)
        }
        #expect(file.arguments.positionals.isEmpty)
    }

    @Test func numbersArraysAndFalseFlags() throws {
        let file = try parse("""
            {"max-connections": 512, "duration": 2.5, "webhook": ["https://a.example/x", "https://b.example/y"],
             "no-record": false, "no-http": true}
            """)
        #expect(file.arguments.value("max-connections") == "512")
        #expect(file.arguments.value("duration") == "2.5")
        #expect(file.arguments.values["webhook"] == ["https://a.example/x", "https://b.example/y"])
        #expect(file.arguments.flags == ["no-http"])
    }

    @Test func anUnknownKeyIsNamedWithItsLine() {
        let message = usageMessage("{\n  \"listen\": \"127.0.0.1:0\",\n  \"http-port\": \"8080\"\n}")
        #expect(message == "--config serve.json, line 3: \"http-port\" is not an option of stream serve "
                + "(see stream serve --help)")
        #expect(usageMessage("{\"config\": \"other.json\"}")?.contains("\"config\" is not an option") == true)
        #expect(usageMessage("{\"help\": true}")?.contains("\"help\" is not an option") == true)
    }

    @Test func aWrongTypeIsNamedWithItsLine() {
        #expect(usageMessage("{\n\"no-http\": \"yes\"}")
                == "--config serve.json, line 2: \"no-http\" is a flag: expected true or false, found a string")
        #expect(usageMessage("{\"listen\": {\"host\": \"x\"}}")
                == "--config serve.json, line 1: \"listen\" expected HOST:PORT as a string, found an object")
        #expect(usageMessage("{\"listen\": null}")?.contains("found null") == true)
        #expect(usageMessage("{\"webhook\": []}")?.contains("found an empty array") == true)
        #expect(usageMessage("{\"webhook\": [true]}")?.contains("found a Boolean") == true)
    }

    @Test func malformedJSONAndNotAnObject() {
        #expect(usageMessage("{\n\"listen\" \"x\"}")?.hasPrefix("--config serve.json: line 2, column 10:") == true)
        #expect(usageMessage("[\"--no-http\"]")
                == "--config serve.json: line 1: expected a JSON object, found an array")
        #expect(usageMessage("{\"listen\": \"a\", \"listen\": \"b\"}") != nil, "a duplicate key")
    }

    @Test func theCommandLineOverridesTheFile() throws {
        let file = try parse("""
            {"listen": "127.0.0.1:1935", "http-listen": "127.0.0.1:8080", "webhook": ["https://a.example/x"],
             "no-record": true}
            """)
        let commandLine = try ArgumentParser.parse(["--listen", "127.0.0.1:0", "--webhook", "https://c.example/z",
                                                    "--no-http"], options: options)
        let merged = file.merged(under: commandLine)
        #expect(merged.value("listen") == "127.0.0.1:0")
        #expect(merged.values["webhook"] == ["https://c.example/z"], "the command line's values replace the file's")
        #expect(merged.value("http-listen") == "127.0.0.1:8080")
        #expect(merged.flags == ["no-http", "no-record"])
    }

    /// A reload compares the file with the start's: values and flags that differ, not those the command line gives.
    @Test func aReloadFindsTheKeysThatChanged() throws {
        let start = try parse(#"{"webhook": "http://a/", "max-connections": 10, "no-record": true, "duration": 5}"#)
        let now = try parse(#"{"webhook": "http://b/", "max-connections": 10, "record-format": "mp4", "duration": 9}"#)
        var commandLine = ParsedArguments()
        commandLine.values["duration"] = ["60"]
        #expect(ServeConfigReload.changedKeys(from: start, to: now, commandLine: commandLine)
                    == ["no-record", "record-format", "webhook"])
        #expect(ServeConfigReload.changedKeys(from: start, to: start, commandLine: ParsedArguments()).isEmpty)
    }

    @Test func aBadValueFoundLaterNamesTheFilesLine() throws {
        let file = try parse("{\n\"max-connections\": 0,\n\"listen\": \"x\"}")
        let commandLine = try ArgumentParser.parse(["--listen", "nowhere"], options: options)
        let late = CLIError.usage("--max-connections must be a whole number from 1 to 100000, not '0'")
        #expect(file.locating(late, commandLine: commandLine).message
                == late.message + " (--config serve.json, line 2: \"max-connections\")")
        // From the command line: the file's line would mislead.
        let fromCommandLine = CLIError.usage("--listen must be HOST:PORT (e.g. 127.0.0.1:1935), not 'nowhere'")
        #expect(file.locating(fromCommandLine, commandLine: commandLine) == fromCommandLine)
        #expect(file.locating(.failure("--max-connections"), commandLine: commandLine).message == "--max-connections")
    }

    @Test func serveReportsABadValueWithTheFilesLine() throws {
        let work = try TemporaryDirectory("serve-config")
        let path = work.file("serve.json")
        try "{\n  \"no-record\": true,\n  \"max-connections\": 0\n}\n".write(toFile: path, atomically: true,
                                                                             encoding: .utf8)
        let capture = ConsoleCapture()
        let status = StreamCLIMain.run(["stream", "serve", "--config", path], console: capture.console,
                                       environment: [:])
        #expect(status == ExitCode.usage)
        #expect(capture.error.contains("not '0' (--config \(path), line 3: \"max-connections\")"), "\(capture.error)")
        #expect(capture.output.isEmpty)
    }
}
