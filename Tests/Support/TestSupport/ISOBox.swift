/// A test-side reader of ISO BMFF boxes (ISO/IEC 14496-12 §4.2), written apart from the writer under test, to walk
/// what it produced.
public struct Box: CustomStringConvertible, Sendable {
    public var type: String
    /// The body after the 8-byte header (for a full box, still starting with version and flags).
    public var payload: [UInt8]
    public var children: [Box]

    /// Boxes whose bodies are other boxes, and how many bytes of fields come before the first child.
    public static let containers: [String: Int] = [
        "moov": 0, "trak": 0, "mdia": 0, "minf": 0, "dinf": 0, "stbl": 0, "mvex": 0, "moof": 0, "traf": 0,
        "dref": 8, "stsd": 8, "avc1": 78, "mp4a": 28,
    ]

    public var description: String {
        children.isEmpty ? type : "\(type)[\(children.map(\.description).joined(separator: " "))]"
    }

    /// The full box's version and flags.
    public var version: UInt8 { payload[0] }
    public var flags: UInt32 { UInt32(payload[1]) << 16 | UInt32(payload[2]) << 8 | UInt32(payload[3]) }

    /// The first descendant of this type (depth first).
    public func find(_ path: String) -> Box? {
        var current: Box? = self
        for component in path.split(separator: "/") {
            current = current?.children.first { $0.type == component }
        }
        return current
    }

    public func all(_ type: String) -> [Box] { children.filter { $0.type == type } }

    /// Reads a big-endian integer of `width` bytes at `offset` of the payload.
    public func uint(at offset: Int, width: Int) -> UInt64 {
        Self.uint(payload, at: offset, width: width) ?? .max
    }

    static func uint(_ bytes: [UInt8], at offset: Int, width: Int) -> UInt64? {
        guard offset >= 0, offset + width <= bytes.count else { return nil }
        return bytes[offset..<offset + width].reduce(0) { $0 << 8 | UInt64($1) }
    }

    public struct Malformed: Error, CustomStringConvertible {
        public var description: String
    }

    /// Parses a sequence of boxes that must fill `bytes` exactly.
    public static func parse(_ bytes: [UInt8]) throws -> [Box] {
        var boxes: [Box] = []
        var index = 0
        while index < bytes.count {
            guard index + 8 <= bytes.count else { throw Malformed(description: "partial box header at \(index)") }
            let size = Int(Self.uint(bytes, at: index, width: 4) ?? 0)
            guard size >= 8, index + size <= bytes.count else {
                throw Malformed(description: "box at \(index) claims \(size) bytes of \(bytes.count - index)")
            }
            let type = String(decoding: bytes[index + 4..<index + 8], as: UTF8.self)
            let payload = Array(bytes[index + 8..<index + size])
            var children: [Box] = []
            if let skip = containers[type] {
                guard payload.count >= skip else { throw Malformed(description: "\(type) is too short") }
                children = try parse(Array(payload[skip...]))
            }
            boxes.append(Box(type: type, payload: payload, children: children))
            index += size
        }
        return boxes
    }
}
