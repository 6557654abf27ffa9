/// The file names a packaged stream is served under, relative to its playlist.
///
/// Every name carries the stream's epoch (unique per publish), so a name never stands for two different contents
/// and the media can be cached as immutable: `init-EPOCH-N.mp4`, `part-EPOCH-MSN.INDEX.m4s`, `seg-EPOCH-MSN.m4s`.
public enum ResourceName: Sendable, Hashable, CustomStringConvertible {
    /// The init segment of version `index` (a new one after a change of configuration).
    case initSegment(epoch: String, index: Int)
    /// Part `index` of segment `msn`.
    case part(epoch: String, msn: Int, index: Int)
    /// The whole segment `msn`.
    case segment(epoch: String, msn: Int)

    /// The file name.
    public var description: String {
        switch self {
        case .initSegment(let epoch, let index): "init-\(epoch)-\(index).mp4"
        case .part(let epoch, let msn, let index): "part-\(epoch)-\(msn).\(index).m4s"
        case .segment(let epoch, let msn): "seg-\(epoch)-\(msn).m4s"
        }
    }

    /// The epoch in the name.
    public var epoch: String {
        switch self {
        case .initSegment(let epoch, _), .part(let epoch, _, _), .segment(let epoch, _): epoch
        }
    }

    /// The longest number accepted in a name (a media sequence number of a stream running for centuries).
    static let maximumDigits = 12

    /// Parses a file name; nil for anything that is not one of the three forms with a letters-and-digits epoch.
    /// Read in place over the name's UTF-8 (asked of every media request): no array is made.
    public init?(parsing name: String) {
        let utf8 = name.utf8
        func number(_ digits: Substring.UTF8View) -> Int? {
            guard !digits.isEmpty, digits.count <= Self.maximumDigits,
                  digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        func split(_ prefix: String.UTF8View, _ suffix: String.UTF8View) -> (epoch: String, rest: Substring.UTF8View)? {
            guard utf8.count > prefix.count + suffix.count, utf8.starts(with: prefix),
                  utf8.suffix(suffix.count).elementsEqual(suffix) else { return nil }
            let middle = utf8[utf8.index(utf8.startIndex, offsetBy: prefix.count)
                ..< utf8.index(utf8.endIndex, offsetBy: -suffix.count)]
            guard let dash = middle.firstIndex(of: 0x2D) else { return nil }
            let epoch = middle[middle.startIndex..<dash]
            guard !epoch.isEmpty, epoch.count <= 32,
                  epoch.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }) else { return nil }
            return (String(Substring(epoch)), middle[middle.index(after: dash)...])
        }
        if let (epoch, rest) = split("init-".utf8, ".mp4".utf8), let index = number(rest) {
            self = .initSegment(epoch: epoch, index: index)
        } else if let (epoch, rest) = split("seg-".utf8, ".m4s".utf8), let msn = number(rest) {
            self = .segment(epoch: epoch, msn: msn)
        } else if let (epoch, rest) = split("part-".utf8, ".m4s".utf8), let dot = rest.firstIndex(of: 0x2E),
                  let msn = number(rest[rest.startIndex..<dot]), let index = number(rest[rest.index(after: dot)...]) {
            self = .part(epoch: epoch, msn: msn, index: index)
        } else {
            return nil
        }
    }
}
