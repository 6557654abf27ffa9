/// Removes secrets (stream keys, passwords) from text before it reaches a log, an error or a description.
public enum Redaction {
    /// What a redacted secret looks like wherever it would have appeared.
    public static let mask = "••••"

    /// Replaces every occurrence of each non-empty secret in `text` with `••••`.
    ///
    /// Longer secrets are replaced first, so a secret that contains another one is masked whole.
    /// - Parameters:
    ///   - text: the text that may contain secrets.
    ///   - secrets: the secrets to remove; empty strings are ignored.
    /// - Returns: `text` with no occurrence of any secret left.
    public static func redact(_ text: String, secrets: [String]) -> String {
        var result = text
        for secret in secrets.filter({ !$0.isEmpty }).sorted(by: { $0.count > $1.count }) {
            result = result.replacingAll(secret, with: mask)
        }
        return result
    }
}

extension String {
    /// Replaces every non-overlapping occurrence of `target`, scanning left to right (standard library only).
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var output = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            output += rest[rest.startIndex..<range.lowerBound]
            output += replacement
            rest = rest[range.upperBound...]
        }
        output += rest
        return output
    }
}
