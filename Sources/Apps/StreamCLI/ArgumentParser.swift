/// An option a command accepts: `--name`, optionally `-x`, either a boolean flag or taking a value.
public struct OptionSpec: Sendable, Equatable {
    /// The long name without dashes, e.g. `json`.
    public var name: String
    /// A one-letter alias, e.g. `p` for `-p`.
    public var short: Character?
    /// Whether the option takes a value (`--port 1935` or `--port=1935`).
    public var takesValue: Bool
    /// The placeholder shown in help, e.g. `PORT`.
    public var valueName: String
    /// One line of help.
    public var help: String

    /// A boolean flag (`--json`).
    public static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, takesValue: false, valueName: "", help: help)
    }

    /// An option with a value (`--port PORT`).
    public static func value(_ name: String, short: Character? = nil, valueName: String, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, takesValue: true, valueName: valueName, help: help)
    }
}

/// The result of parsing one command's arguments.
public struct ParsedArguments: Sendable, Equatable {
    /// Arguments that are not options, in order (everything after `--` included).
    public var positionals: [String] = []
    /// Values of options that take one, by long name, in the order given.
    public var values: [String: [String]] = [:]
    /// Boolean flags that were given, by long name.
    public var flags: Set<String> = []
    /// Whether `-h` or `--help` was given (before `--`).
    public var helpRequested = false
    /// When parsing stopped at the first positional (a subcommand), the arguments after it.
    public var remainder: [String] = []

    /// Creates an empty result.
    public init() {}

    /// The last value given for an option, or nil.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Whether a boolean flag was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// Refuses positionals for a command that takes none.
    /// - Parameter command: the command's words for the message, e.g. `settings show`.
    /// - Throws: `CLIError.usage`.
    public func requireNoPositionals(_ command: String) throws(CLIError) {
        guard positionals.isEmpty else { throw CLIError.usage("'\(command)' takes no arguments") }
    }
}

/// A small, strict command-line parser.
///
/// Accepts `--name value`, `--name=value`, boolean `--flag`, `-x` aliases (one letter each, not bundled),
/// positionals anywhere, `--` to end options, and `-h`/`--help` anywhere before `--`. A lone `-` and negative
/// numbers (`-5`) are positionals. Unknown options, a missing value, or a value given to a flag are usage errors.
public enum ArgumentParser {
    /// Parses arguments (without the program or command names).
    /// - Parameters:
    ///   - arguments: the raw arguments.
    ///   - options: what the command accepts (`-h`/`--help` are always accepted).
    ///   - stopAtFirstPositional: for command groups: the first positional is returned as the only positional,
    ///     and everything after it is left unparsed in `remainder` for the subcommand.
    /// - Throws: `CLIError` with exit code 2.
    public static func parse(_ arguments: [String], options: [OptionSpec],
                             stopAtFirstPositional: Bool = false) throws(CLIError) -> ParsedArguments {
        var result = ParsedArguments()
        // Help wins over every other mistake, wherever it is (before `--`, and before a subcommand for groups).
        for argument in arguments {
            if argument == "--" { break }
            if argument == "-h" || argument == "--help" {
                result.helpRequested = true
                return result
            }
            if stopAtFirstPositional && isPositional(argument) { break }
        }

        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                result.positionals += arguments[index...]
                break
            }
            if isPositional(argument) {
                result.positionals.append(argument)
                if stopAtFirstPositional {
                    result.remainder = Array(arguments[index...])
                    break
                }
                continue
            }
            let (spec, inlineValue) = try lookUp(argument, in: options)
            if spec.takesValue {
                if let inlineValue {
                    result.values[spec.name, default: []].append(inlineValue)
                } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                    result.values[spec.name, default: []].append(arguments[index])
                    index += 1
                } else {
                    throw CLIError.usage("option --\(spec.name) needs a value (\(spec.valueName))")
                }
            } else {
                guard inlineValue == nil else { throw CLIError.usage("option --\(spec.name) takes no value") }
                result.flags.insert(spec.name)
            }
        }
        return result
    }

    /// Whether an argument is a positional: not starting with `-`, a lone `-`, or a negative number.
    static func isPositional(_ argument: String) -> Bool {
        guard argument.hasPrefix("-"), argument != "-" else { return true }
        let rest = argument.dropFirst()
        return rest.first.map { $0.isASCII && $0.isNumber } ?? false
    }

    private static func lookUp(_ argument: String, in options: [OptionSpec]) throws(CLIError)
        -> (OptionSpec, String?) {
        if argument.hasPrefix("--") {
            let body = argument.dropFirst(2)
            let name: Substring
            let value: String?
            if let equals = body.firstIndex(of: "=") {
                name = body[..<equals]
                value = String(body[body.index(after: equals)...])
            } else {
                name = body
                value = nil
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                throw CLIError.usage("unknown option --\(name.prefix(40))")
            }
            return (spec, value)
        }
        let letters = argument.dropFirst()
        guard letters.count == 1, let letter = letters.first,
              let spec = options.first(where: { $0.short == letter })
        else { throw CLIError.usage("unknown option \(argument.prefix(40))") }
        return (spec, nil)
    }
}
