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
    public init?(parsing name: String) {
        let bytes = Array(name.utf8)
        func number<C: Collection>(_ digits: C) -> Int? where C.Element == UInt8 {
            guard !digits.isEmpty, digits.count <= Self.maximumDigits,
                  digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        func split(_ prefix: String, _ suffix: String) -> (epoch: String, rest: ArraySlice<UInt8>)? {
            let prefixBytes = Array(prefix.utf8)
            let suffixBytes = Array(suffix.utf8)
            guard bytes.count > prefixBytes.count + suffixBytes.count, bytes.starts(with: prefixBytes),
                  bytes.suffix(suffixBytes.count).elementsEqual(suffixBytes) else { return nil }
            let middle = bytes[prefixBytes.count..<bytes.count - suffixBytes.count]
            guard let dash = middle.firstIndex(of: 0x2D) else { return nil }
            let epoch = middle[middle.startIndex..<dash]
            guard !epoch.isEmpty, epoch.count <= 32,
                  epoch.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }) else { return nil }
            return (String(decoding: epoch, as: UTF8.self), middle[(dash + 1)...])
        }
        if let (epoch, rest) = split("init-", ".mp4"), let index = number(rest) {
            self = .initSegment(epoch: epoch, index: index)
        } else if let (epoch, rest) = split("seg-", ".m4s"), let msn = number(rest) {
            self = .segment(epoch: epoch, msn: msn)
        } else if let (epoch, rest) = split("part-", ".m4s"), let dot = rest.firstIndex(of: 0x2E),
                  let msn = number(rest[rest.startIndex..<dot]), let index = number(rest[(dot + 1)...]) {
            self = .part(epoch: epoch, msn: msn, index: index)
        } else {
            return nil
        }
    }
}
