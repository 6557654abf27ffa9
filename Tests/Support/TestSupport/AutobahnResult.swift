/// One Autobahn|Testsuite case's verdicts, as the kosoku scripts of the WebSocket tests print them: a line
/// "case-id behavior close-behavior duration-ms passed" per case.
public struct AutobahnResult: Sendable, CustomStringConvertible {
    public var caseID: String
    public var behavior: String
    public var closeBehavior: String
    public var milliseconds: Int
    public var passed: Bool

    /// "7.1.6 INFORMATIONAL/INFORMATIONAL".
    public var description: String { "\(caseID) \(behavior)/\(closeBehavior)" }

    /// Whether either verdict is something other than OK.
    public var isException: Bool { behavior != "OK" || closeBehavior != "OK" }

    /// The results among `lines` (other lines are skipped).
    public static func parse<Lines: Sequence>(_ lines: Lines) -> [AutobahnResult] where Lines.Element: StringProtocol {
        lines.compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 5, let milliseconds = Int(fields[3]) else { return nil }
            return AutobahnResult(caseID: String(fields[0]), behavior: String(fields[1]),
                                  closeBehavior: String(fields[2]), milliseconds: milliseconds,
                                  passed: fields[4] == "True")
        }
    }

    /// The Python line that prints one result `r` of kosoku in the format ``parse(_:)`` reads.
    public static let printLine = "print(r.case_id, r.behavior.value, r.behavior_close.value, r.duration, r.passed)"

    /// Cases whose verdict is INFORMATIONAL for every implementation (docs/http.md, "Autobahn"): 7.1.6 (a message,
    /// a close and a ping back to back: what comes back depends on when the close is processed), 7.13.1 and
    /// 7.13.2 (close codes 5000 and 65535, whose handling the RFC leaves undefined; we answer 1002).
    public static let informationalByDesign: Set<String> = ["7.1.6", "7.13.1", "7.13.2"]
}
