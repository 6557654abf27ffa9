#if canImport(Glibc)
import FoundationEssentials
#else
import Foundation
#endif
import JSON

/// `stream serve --config FILE`: a JSON object whose keys are `stream serve`'s options, turned into parsed arguments.
///
/// Every option has a key: its name without `--`. An option with a value takes a string, a number (`"duration": 60`)
/// or an array of them (what repeating the option on the command line gives); a flag takes `true` or `false`
/// (`false` is the same as leaving it out). What the command line gives wins over the file, option by option.
/// Secrets are never values here: the options that need one take a file (`token-secret-file`,
/// `webhook-secret-file`, `keys-file`), so a config file can be shared and kept in version control.
struct ServeConfigFile: Sendable, Equatable {
    /// The options the file gives, as if they were on the command line.
    var arguments: ParsedArguments
    /// The line of each key in the file, so a value found wrong later can be located.
    var lines: [String: Int]
    /// The file's path, for messages.
    var path: String

    /// `--config FILE`.
    static let option = OptionSpec.value(
        "config", valueName: "FILE",
        help: "Options from a JSON object, keys named as the options (\"http-listen\": \"...\"); flags override it.")

    /// Options that make no sense in a file: the file itself.
    static let excluded: Set<String> = ["config"]

    /// Parses a config file's bytes.
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - path: the file's path, for messages.
    ///   - options: what `stream serve` accepts.
    /// - Throws: `CLIError.usage` naming the file, the line and the key of the first mistake.
    static func parse(_ bytes: [UInt8], path: String, options: [OptionSpec]) throws(CLIError) -> ServeConfigFile {
        let document: JSONDocument
        do {
            document = try JSONParser.parseDocument(bytes)
        } catch {
            throw CLIError.usage("--config \(path): \(error.description)")
        }
        guard let members = document.value.objectValue else {
            throw CLIError.usage("--config \(path): line 1: expected a JSON object, found \(document.value.typeName)")
        }
        var result = ServeConfigFile(arguments: ParsedArguments(), lines: [:], path: path)
        for (key, value) in members {
            let line = document.line(at: [.key(key)])
            let at = "--config \(path), line \(line): \"\(key.prefix(40))\""
            guard !excluded.contains(key), let spec = options.first(where: { $0.name == key }) else {
                throw CLIError.usage("\(at) is not an option of stream serve (see stream serve --help)")
            }
            result.lines[key] = line
            if !spec.takesValue {
                guard let flag = value.boolValue else {
                    throw CLIError.usage("\(at) is a flag: expected true or false, found \(value.typeName)")
                }
                if flag { result.arguments.flags.insert(key) }
                continue
            }
            let elements = value.arrayValue ?? [value]
            guard !elements.isEmpty else {
                throw CLIError.usage("\(at) expected \(spec.valueName), found an empty array")
            }
            for element in elements {
                guard let text = Self.text(of: element) else {
                    throw CLIError.usage("\(at) expected \(spec.valueName) as a string, found \(element.typeName)")
                }
                result.arguments.values[key, default: []].append(text)
            }
        }
        return result
    }

    /// Reads the file `--config` names, if any.
    /// - Throws: `CLIError.usage` for a file that cannot be read or is wrong.
    static func load(_ commandLine: ParsedArguments, options: [OptionSpec]) throws(CLIError) -> ServeConfigFile? {
        guard let path = commandLine.value(option.name) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError.usage("--config: cannot read \(path)")
        }
        return try parse(Array(data), path: path, options: options)
    }

    /// A value as the command line would give it: a string as is, a whole number without a fraction.
    private static func text(of value: JSONValue) -> String? {
        if let text = value.stringValue { return text }
        if let integer = value.integerValue { return String(integer) }
        if let number = value.numberValue { return number.description }
        return nil
    }

    /// The file's options under the command line's: an option given on the command line replaces the file's
    /// (all of its values, for one that repeats).
    func merged(under commandLine: ParsedArguments) -> ParsedArguments {
        var merged = commandLine
        for (name, values) in arguments.values where commandLine.values[name] == nil {
            merged.values[name] = values
        }
        merged.flags.formUnion(arguments.flags)
        return merged
    }

    /// Adds where a value came from to a usage error about an option the file gave and the command line did not.
    ///
    /// The checks of a value (a port, a number, a readable file) name the option as `--name`; this adds the file
    /// and line so the operator edits the right place.
    func locating(_ error: CLIError, commandLine: ParsedArguments) -> CLIError {
        guard error.exitCode == ExitCode.usage else { return error }
        let fromFile = lines.keys.filter { commandLine.values[$0] == nil && !commandLine.flags.contains($0) }
        for name in fromFile.sorted(by: { $0.count > $1.count }) where Self.mentions(error.message, option: name) {
            return CLIError(exitCode: error.exitCode,
                            message: error.message + " (--config \(path), line \(lines[name] ?? 1): \"\(name)\")",
                            helpCommand: error.helpCommand)
        }
        return error
    }

    /// Whether a message names `--name` itself, not a longer option that starts with it.
    private static func mentions(_ message: String, option name: String) -> Bool {
        var rest = Substring(message)
        while let range = rest.firstRange(of: "--" + name) {
            let next = rest[range.upperBound...].first
            if next.map({ !($0.isLetter || $0.isNumber || $0 == "-") }) ?? true { return true }
            rest = rest[range.upperBound...]
        }
        return false
    }
}
