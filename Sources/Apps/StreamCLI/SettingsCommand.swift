import StreamCore

/// `stream settings show|set|reset`: the non-sensitive broadcast settings.
struct SettingsCommand: Command {
    let name = "settings"
    let summary = "Show and change the broadcast settings (quality, fps, bitrates, picture-in-picture, input)."
    let subcommands: [any Command] = [SettingsShowCommand(), SettingsSetCommand(), SettingsResetCommand()]

    /// Loads the settings, printing every warning (clamped values, a corrupt blob moved aside) to stderr.
    static func load(_ store: SettingsStore, context: CommandContext) -> StreamSettings {
        let result = store.load()
        for warning in result.warnings { context.warn("settings: \(warning.message)") }
        return result.settings
    }
}

/// `stream settings show [--json]`.
struct SettingsShowCommand: Command {
    let name = "show"
    let summary = "Print the settings, one 'key value' per line."
    let options: [OptionSpec] = [.flag("json", help: "Print the stored JSON blob instead.")]

    func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        try arguments.requireNoPositionals("settings show")
        let settings = SettingsCommand.load(try context.settingsStore(), context: context)
        if arguments.flag("json") {
            context.console.print(String(decoding: SettingsStore.encode(settings), as: UTF8.self))
            return ExitCode.success
        }
        let rows = SettingsKey.allCases.map { ($0.rawValue, $0.format(settings)) }
        let width = rows.map(\.0.count).max() ?? 0
        for (key, value) in rows {
            context.console.print(key + String(repeating: " ", count: width - key.count + 2) + value)
        }
        return ExitCode.success
    }
}

/// `stream settings set KEY VALUE`.
struct SettingsSetCommand: Command {
    let name = "set"
    let summary = "Change one setting; an invalid value is refused (exit 2) and nothing is saved."
    let argumentsSynopsis = "KEY VALUE"
    var discussion: String {
        "Keys and valid values:\n" + HelpFormatter.table(SettingsKey.allCases.map { ($0.rawValue, $0.choices) })
            .joined(separator: "\n")
            + "\n\nChanging quality or fps moves a video bitrate that is still at its default to the new default."
    }

    func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        guard arguments.positionals.count == 2 else {
            throw CLIError.usage("'settings set' needs a KEY and a VALUE")
        }
        let keyText = arguments.positionals[0]
        guard let key = SettingsKey(rawValue: keyText.lowercased()) else {
            throw CLIError.usage("unknown setting '\(keyText.prefix(40))': valid keys are "
                                    + SettingsKey.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let store = try context.settingsStore()
        var settings = SettingsCommand.load(store, context: context)
        let before = settings
        try key.apply(arguments.positionals[1], to: &settings)
        for warning in try store.save(settings) { context.warn("settings: \(warning.message)") }
        context.console.print("\(key.rawValue) = \(key.format(settings))")
        if key != .videoBitrate && before.videoBitrateKbps != settings.videoBitrateKbps {
            context.console.print("video-bitrate = \(settings.videoBitrateKbps) (the default for "
                                    + "\(settings.quality.rawValue)\(settings.fps))")
        }
        return ExitCode.success
    }
}

/// `stream settings reset`.
struct SettingsResetCommand: Command {
    let name = "reset"
    let summary = "Restore every setting to its default (720p30, 3000 kbps video, 128 kbps audio)."

    func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        try arguments.requireNoPositionals("settings reset")
        let store = try context.settingsStore()
        for warning in try store.reset() { context.warn("settings: \(warning.message)") }
        context.console.print("Settings reset to defaults.")
        return ExitCode.success
    }
}
