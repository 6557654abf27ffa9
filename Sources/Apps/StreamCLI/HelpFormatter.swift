/// Renders `--help` text for a command from its declaration.
enum HelpFormatter {
    /// The full help of a command reached through `path` (e.g. `["stream", "settings"]`).
    static func help(for command: any Command, path: [String]) -> String {
        let invocation = path.joined(separator: " ")
        var lines: [String] = []
        var usage = "Usage: \(invocation)"
        if !command.subcommands.isEmpty { usage += " <command>" }
        if !command.argumentsSynopsis.isEmpty { usage += " \(command.argumentsSynopsis)" }
        usage += " [options]"
        lines.append(usage)
        lines.append("")
        lines.append(command.summary)
        if !command.discussion.isEmpty {
            lines.append("")
            lines.append(command.discussion)
        }
        if !command.subcommands.isEmpty {
            lines.append("")
            lines.append("Commands:")
            lines += table(command.subcommands.map { ($0.name, $0.summary) })
        }
        lines.append("")
        lines.append("Options:")
        var rows = command.options.map { spec -> (String, String) in
            var left = spec.short.map { "-\($0), " } ?? ""
            left += "--\(spec.name)"
            if spec.takesValue { left += " \(spec.valueName)" }
            return (left, spec.help)
        }
        rows.append(("-h, --help", "Show this help."))
        lines += table(rows)
        if !command.subcommands.isEmpty {
            lines.append("")
            lines.append("Run '\(invocation) <command> --help' for a command's help.")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Two aligned columns, indented by two spaces.
    static func table(_ rows: [(String, String)]) -> [String] {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { left, right in
            "  " + left + String(repeating: " ", count: width - left.count + 3) + right
        }
    }
}
