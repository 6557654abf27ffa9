/// Removes secrets (stream keys, passwords) from text before it reaches a log, an error or a description.
public enum Redaction {
    /// What a redacted secret looks like wherever it would have appeared.
    public static let mask = "••••"

    /// Replaces every occurrence of each non-empty secret in `text` with `••••`.
    ///
    /// Longer secrets are replaced first, so a secret that contains another one is masked whole. A secret shorter
    /// than ``shortSecretLength`` characters (a stream key such as `test`) is masked only where it stands as a
    /// word of its own — not next to a letter or digit — so that masking it cannot mangle ordinary words
    /// ("latest", "contest") while every place the secret itself appears (`/live/test`, `key=test`) is masked.
    /// - Parameters:
    ///   - text: the text that may contain secrets.
    ///   - secrets: the secrets to remove; empty strings are ignored.
    /// - Returns: `text` with no occurrence of any secret left.
    public static func redact(_ text: String, secrets: [String]) -> String {
        var result = text
        for secret in secrets.filter({ !$0.isEmpty }).sorted(by: { $0.count > $1.count }) {
            result = result.replacingAll(secret, with: mask, wholeWordsOnly: secret.count < shortSecretLength)
        }
        return result
    }

    /// Secrets shorter than this are masked only where they stand as a word of their own.
    public static let shortSecretLength = 8
}

extension String {
    /// Replaces every non-overlapping occurrence of `target`, scanning left to right (standard library only);
    /// with `wholeWordsOnly`, only occurrences with no letter or digit right before or after them.
    fileprivate func replacingAll(_ target: String, with replacement: String, wholeWordsOnly: Bool) -> String {
        guard !target.isEmpty else { return self }
        var output = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            if wholeWordsOnly && !standsAlone(range) {
                // Keep the first character and look again after it (occurrences may overlap a rejected one).
                let next = index(after: range.lowerBound)
                output += rest[rest.startIndex..<next]
                rest = rest[next...]
                continue
            }
            output += rest[rest.startIndex..<range.lowerBound]
            output += replacement
            rest = rest[range.upperBound...]
        }
        output += rest
        return output
    }

    /// Whether the characters on either side of `range` (in the whole string) are neither letters nor digits.
    private func standsAlone(_ range: Range<Index>) -> Bool {
        let before = range.lowerBound > startIndex ? self[index(before: range.lowerBound)] : nil
        let after = range.upperBound < endIndex ? self[range.upperBound] : nil
        return [before, after].allSatisfy { character in
            guard let character else { return true }
            return !(character.isLetter || character.isNumber)
        }
    }
}
