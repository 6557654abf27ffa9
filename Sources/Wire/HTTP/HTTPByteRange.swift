/// A `Range: bytes=…` request (RFC 9110 §14.1.2), resolved against a representation's length.
///
/// One range only: a request for several ranges is answered with the whole representation (RFC 9110 §14.2 lets a
/// server ignore Range), as is any Range this parser does not understand.
public enum HTTPByteRange: Sendable, Equatable {
    /// `bytes=first-last` (last inclusive, nil for "to the end").
    case closed(first: Int, last: Int?)
    /// `bytes=-count`: the last `count` bytes.
    case suffix(count: Int)

    /// What to send for a range over a representation of some length.
    public enum Resolution: Sendable, Equatable {
        /// The bytes `range` (206 Partial Content).
        case partial(Range<Int>)
        /// The range starts past the end (416 Range Not Satisfiable).
        case unsatisfiable
    }

    /// Parses a Range field value; nil for anything but one well-formed byte range.
    public init?(_ value: String) {
        let trimmed = HTTPHeaders.trimmed(Substring(value))
        guard trimmed.lowercased().hasPrefix("bytes=") else { return nil }
        let spec = trimmed.dropFirst(6)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let firstText = spec[..<dash]
        let lastText = spec[spec.index(after: dash)...]
        if firstText.isEmpty {
            guard let count = Self.number(lastText), count > 0 else { return nil }
            self = .suffix(count: count)
            return
        }
        guard let first = Self.number(firstText) else { return nil }
        if lastText.isEmpty {
            self = .closed(first: first, last: nil)
            return
        }
        guard let last = Self.number(lastText), last >= first else { return nil }
        self = .closed(first: first, last: last)
    }

    /// The bytes to send of a representation `length` bytes long.
    public func resolve(length: Int) -> Resolution {
        switch self {
        case .closed(let first, let last):
            guard first < length else { return .unsatisfiable }
            return .partial(first..<(min(last ?? (length - 1), length - 1) + 1))
        case .suffix(let count):
            guard length > 0 else { return .unsatisfiable }
            return .partial(max(0, length - count)..<length)
        }
    }

    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int(text)
    }
}
