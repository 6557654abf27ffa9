/// RFC 8216bis §6.2.5.2, Blocking Playlist Reload: whether a playlist request with `_HLS_msn` (and `_HLS_part`)
/// is answered now, held until the playlist has what it asks for, or refused.
public enum BlockingReload {
    /// The delivery directives of a playlist request.
    public struct Directives: Sendable, Hashable {
        /// `_HLS_msn`: the media sequence number wanted.
        public var msn: Int?
        /// `_HLS_part`: the part index wanted within it.
        public var part: Int?

        /// Creates directives.
        public init(msn: Int? = nil, part: Int? = nil) {
            self.msn = msn
            self.part = part
        }

        /// Reads `_HLS_msn` and `_HLS_part` from a URL query (`a=1&_HLS_msn=12&_HLS_part=3`); other parameters,
        /// `_HLS_skip` among them (delta updates are not offered), are ignored.
        /// - Throws: ``HLSRequestError`` when a directive is not a decimal integer or appears twice.
        public init(query: String) throws(HLSRequestError) {
            self.init()
            // Over the UTF-8 bytes (a server reads this from every playlist request, and a request target is
            // ASCII): an ASCII query splits at the same places byte by byte as character by character. Any other is
            // read character by character.
            let utf8 = query.utf8
            guard utf8.allSatisfy({ $0 < 0x80 }) else {
                try readCharacters(query)
                return
            }
            var start = utf8.startIndex
            while start < utf8.endIndex {
                let end = utf8[start...].firstIndex(of: UInt8(ascii: "&")) ?? utf8.endIndex
                if start < end { try read(utf8[start..<end]) }
                start = end == utf8.endIndex ? end : utf8.index(after: end)
            }
        }

        /// One ASCII `name=value` pair.
        private mutating func read(_ pair: Substring.UTF8View) throws(HLSRequestError) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let text = equals.map { pair[pair.index(after: $0)...] } ?? pair[pair.endIndex...]
            try read(name: pair[..<(equals ?? pair.endIndex)], value: text)
        }

        /// A query with characters other than ASCII, split character by character (a combining mark after `&` or
        /// `=` makes one character with it, which does not split).
        private mutating func readCharacters(_ query: String) throws(HLSRequestError) {
            for pair in query.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                try read(name: parts[0].utf8, value: parts.count == 2 ? parts[1].utf8 : Substring().utf8)
            }
        }

        /// A directive by name; other names are ignored. Its value is 1 to 12 decimal digits (no overflow), and
        /// each directive may appear once.
        private mutating func read(name: Substring.UTF8View, value text: Substring.UTF8View) throws(HLSRequestError) {
            let isMSN = name.elementsEqual("_HLS_msn".utf8)
            guard isMSN || name.elementsEqual("_HLS_part".utf8) else { return }
            guard !text.isEmpty, text.count <= 12,
                  text.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                let shown = Substring(text).prefix(20)
                throw HLSRequestError("\(isMSN ? "_HLS_msn" : "_HLS_part") must be a decimal integer, not '\(shown)'")
            }
            let value = text.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            if isMSN {
                guard msn == nil else { throw HLSRequestError("_HLS_msn appears twice") }
                msn = value
            } else {
                guard part == nil else { throw HLSRequestError("_HLS_part appears twice") }
                part = value
            }
        }

        /// Whether the request asks to block at all.
        public var isBlocking: Bool { msn != nil || part != nil }
    }

    /// What to do with a playlist request.
    public enum Decision: Sendable, Hashable {
        /// Answer with the playlist now.
        case ready
        /// Hold the request until the playlist changes, then decide again (answer 503 after
        /// ``maximumHoldTargetDurations`` target durations).
        case hold
        /// Answer 400 Bad Request, with the reason.
        case badRequest(String)
    }

    /// RFC 8216bis §6.2.5.2: a server that cannot answer after blocking for three target durations should answer
    /// 503 Service Unavailable.
    public static let maximumHoldTargetDurations = 3

    /// Decides a playlist request.
    /// - Parameters:
    ///   - directives: the request's `_HLS_msn` and `_HLS_part`.
    ///   - position: where the playlist stands now; nil when it does not exist yet (no complete segment).
    public static func decide(_ directives: Directives, position: PlaylistPosition?) -> Decision {
        if directives.part != nil && directives.msn == nil {
            return .badRequest("_HLS_part needs _HLS_msn (RFC 8216bis §6.2.5.2)")
        }
        guard let position else { return .hold }
        // An ended playlist is complete: directives are ignored.
        if position.isEnded { return .ready }
        guard let msn = directives.msn else { return .ready }
        let last = position.lastMSN ?? -1
        if msn > last + 2 {
            return .badRequest("_HLS_msn=\(msn) is more than two past the last segment (\(last))")
        }
        if let part = directives.part {
            if msn == position.openMSN, part > position.openPartCount - 1 + position.advancePartLimit {
                return .badRequest("_HLS_part=\(part) is more than \(position.advancePartLimit) parts past the "
                    + "last (\(position.openPartCount - 1))")
            }
            return position.contains(msn: msn, part: part) ? .ready : .hold
        }
        // Without _HLS_part the whole segment must be complete.
        if let complete = position.lastCompleteMSN, msn <= complete { return .ready }
        return .hold
    }
}

/// A playlist or resource request that cannot be answered as asked.
public struct HLSRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong with the request.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
