extension StringProtocol {
    /// The text without leading and trailing whitespace and newlines (what Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` gives, without linking Foundation).
    var trimmed: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
