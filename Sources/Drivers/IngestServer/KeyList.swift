#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Locking

/// The stream keys a server accepts, read from a file with one key a line.
///
/// Blank lines and lines starting with `#` are ignored; surrounding white space is trimmed. Checks compare every
/// key in full, so the time taken does not tell a prober how close a guess was.
///
/// Copies share their keys: ``replace(with:)`` (the operator reloaded the file) changes what every holder of the
/// list allows, the RTMP ingest's and WHIP's alike, without handing them a new value.
public struct KeyList: Sendable {
    private let keys: Locked<[[UInt8]]>

    /// How many keys are allowed.
    public var count: Int { keys.withLock { $0.count } }

    /// Creates a list from keys.
    public init(_ keys: [String]) {
        self.keys = Locked(keys.map { Array($0.utf8) })
    }

    /// Allows `other`'s keys instead of these, in this list and every copy of it. A publish already admitted with a
    /// key that is no longer allowed goes on; the next publish with it is refused.
    public func replace(with other: KeyList) {
        let replacement = other.keys.withLock { $0 }
        keys.withLock { $0 = replacement }
    }

    /// Reads a keys file.
    /// - Throws: ``IngestServerError`` when the file cannot be read or holds no key.
    public init(contentsOfFile path: String) throws(IngestServerError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw IngestServerError(.keysFile, "cannot read the keys file \(path): \(error)")
        }
        let keys = text.split(whereSeparator: \.isNewline)
            .map { String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard !keys.isEmpty else {
            throw IngestServerError(.keysFile, "the keys file \(path) holds no key: put one allowed stream key on each line")
        }
        self.init(keys)
    }

    /// Whether `key` is one of the allowed keys.
    public func allows(_ key: String) -> Bool {
        let candidate = Array(key.utf8)
        var found = false
        for allowed in keys.withLock({ $0 }) where Self.constantTimeEqual(allowed, candidate) {
            found = true
        }
        return found
    }

    private static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: lhs.count ^ rhs.count)
        for index in 0..<max(lhs.count, rhs.count) {
            let left = index < lhs.count ? lhs[index] : 0
            let right = index < rhs.count ? rhs[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }
}
