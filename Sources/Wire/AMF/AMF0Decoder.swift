import ByteIO

/// Decodes AMF0 values from bytes, within `AMF0Limits`.
///
/// One decoder remembers the complex values it has decoded so that a later reference (marker 0x07, AMF0 §2.9)
/// resolves to them; use one decoder per message.
public struct AMF0Decoder: Sendable {
    /// The bounds in force.
    public let limits: AMF0Limits
    private var references: [Remembered?] = []
    private var totalValues = 0
    /// The deepest level reached so far inside the complex value being decoded, references counted at the depth
    /// of what they stand for.
    private var deepest = 0

    /// A complex value kept for references, with its size once expanded: encoding writes a referenced value in
    /// full, so a reference costs as much as its value (else a few bytes of nested references expand
    /// exponentially in whoever walks or re-encodes the result).
    private struct Remembered: Sendable {
        var value: AMF0Value
        /// Values it holds, itself included, references expanded.
        var valueCount: Int
        /// How many levels it nests below itself, references expanded.
        var height: Int
    }

    /// Where a complex value began: the counters to measure it against once it is complete.
    private struct Mark {
        var slot: Int
        var depth: Int
        var valuesBefore: Int
        var deepestOutside: Int
    }

    /// Creates a decoder.
    public init(limits: AMF0Limits = .default) {
        self.limits = limits
    }

    /// Decodes one value, consuming its bytes. On error the reader position is unspecified.
    /// - Throws: `AMF0Error` when the bytes are truncated or malformed.
    public mutating func decodeValue(from reader: inout ByteReader) throws(AMF0Error) -> AMF0Value {
        try decodeValue(from: &reader, depth: 0)
    }

    private mutating func decodeValue(from reader: inout ByteReader, depth: Int) throws(AMF0Error) -> AMF0Value {
        let start = reader.readerIndex
        guard depth < limits.maxDepth else { throw AMF0Error(.tooDeep(limit: limits.maxDepth), at: start) }
        totalValues += 1
        deepest = max(deepest, depth)
        guard totalValues <= limits.maxTotalValues else {
            throw AMF0Error(.tooManyElements(count: UInt32(clamping: totalValues), limit: limits.maxTotalValues),
                            at: start)
        }
        guard let marker = reader.readUInt8() else { throw AMF0Error(.truncated, at: start) }
        switch marker {
        case AMF0Marker.number:
            return .number(try need(reader.readDouble(), start))
        case AMF0Marker.boolean:
            return .boolean(try need(reader.readUInt8(), start) != 0)
        case AMF0Marker.string:
            let length = try need(reader.readUInt16(), start)
            return .string(try readUTF8(&reader, count: UInt32(length), start: start))
        case AMF0Marker.longString, AMF0Marker.xmlDocument:
            let length = try need(reader.readUInt32(), start)
            return .string(try readUTF8(&reader, count: length, start: start))
        case AMF0Marker.object:
            let mark = try reserveReference(start, depth: depth)
            return fill(mark, .object(try decodeProperties(from: &reader, depth: depth, start: start)))
        case AMF0Marker.typedObject:
            let length = try need(reader.readUInt16(), start)
            _ = try readUTF8(&reader, count: UInt32(length), start: start)  // class name: not kept
            let mark = try reserveReference(start, depth: depth)
            return fill(mark, .object(try decodeProperties(from: &reader, depth: depth, start: start)))
        case AMF0Marker.null:
            return .null
        case AMF0Marker.undefined, AMF0Marker.unsupported:
            return .undefined
        case AMF0Marker.reference:
            let index = try need(reader.readUInt16(), start)
            // A reference to an object still being decoded would be a cycle, which a value cannot hold.
            guard Int(index) < references.count, let remembered = references[Int(index)] else {
                throw AMF0Error(.badReference(index: index), at: start)
            }
            guard depth + remembered.height < limits.maxDepth else {
                throw AMF0Error(.tooDeep(limit: limits.maxDepth), at: start)
            }
            totalValues += remembered.valueCount - 1
            guard totalValues <= limits.maxTotalValues else {
                throw AMF0Error(.tooManyElements(count: UInt32(clamping: totalValues), limit: limits.maxTotalValues),
                                at: start)
            }
            deepest = max(deepest, depth + remembered.height)
            return remembered.value
        case AMF0Marker.ecmaArray:
            // The count is only a hint (AMF0 §2.10): real encoders send wrong ones, so read to the object-end.
            _ = try need(reader.readUInt32(), start)
            let mark = try reserveReference(start, depth: depth)
            return fill(mark, .ecmaArray(try decodeProperties(from: &reader, depth: depth, start: start)))
        case AMF0Marker.strictArray:
            let count = try need(reader.readUInt32(), start)
            guard count <= limits.maxCollectionCount else {
                throw AMF0Error(.tooManyElements(count: count, limit: limits.maxCollectionCount), at: start)
            }
            // Each element takes at least one byte: a count beyond what is left is a lie, not a reason to allocate.
            guard Int(count) <= reader.readableBytes else { throw AMF0Error(.truncated, at: start) }
            let mark = try reserveReference(start, depth: depth)
            var elements: [AMF0Value] = []
            elements.reserveCapacity(Int(count))
            for _ in 0..<count {
                elements.append(try decodeValue(from: &reader, depth: depth + 1))
            }
            return fill(mark, .strictArray(elements))
        case AMF0Marker.date:
            let milliseconds = try need(reader.readDouble(), start)
            let zone = try need(reader.readUInt16(), start)
            return .date(millisecondsSince1970: milliseconds, timeZoneMinutes: Int16(bitPattern: zone))
        case AMF0Marker.movieclip, AMF0Marker.recordset, AMF0Marker.avmplusObject, AMF0Marker.objectEnd:
            throw AMF0Error(.unsupportedMarker(marker), at: start)
        default:
            throw AMF0Error(.unknownMarker(marker), at: start)
        }
    }

    private mutating func decodeProperties(
        from reader: inout ByteReader, depth: Int, start: Int
    ) throws(AMF0Error) -> AMF0Object {
        var object = AMF0Object()
        while true {
            let keyStart = reader.readerIndex
            let keyLength = try need(reader.readUInt16(), keyStart)
            if keyLength == 0 {
                // Every object ends with an empty key followed by the object-end marker (AMF0 §2.11).
                let marker = try need(reader.readUInt8(), keyStart)
                guard marker == AMF0Marker.objectEnd else { throw AMF0Error(.missingObjectEnd, at: keyStart) }
                return object
            }
            guard object.count < limits.maxCollectionCount else {
                throw AMF0Error(.tooManyElements(count: UInt32(clamping: object.count + 1),
                                                 limit: limits.maxCollectionCount), at: keyStart)
            }
            let key = try readUTF8(&reader, count: UInt32(keyLength), start: keyStart)
            let value = try decodeValue(from: &reader, depth: depth + 1)
            object.properties.append(AMF0Property(key: key, value: value))
        }
    }

    /// Complex values are numbered in the order they begin (AMF0 §2.9), so the slot is taken before the body.
    private mutating func reserveReference(_ start: Int, depth: Int) throws(AMF0Error) -> Mark {
        guard references.count < limits.maxReferences else {
            throw AMF0Error(.tooManyReferences(limit: limits.maxReferences), at: start)
        }
        references.append(nil)
        // The value itself was counted already by decodeValue.
        let mark = Mark(slot: references.count - 1, depth: depth, valuesBefore: totalValues - 1,
                        deepestOutside: deepest)
        deepest = depth
        return mark
    }

    private mutating func fill(_ mark: Mark, _ value: AMF0Value) -> AMF0Value {
        references[mark.slot] = Remembered(value: value, valueCount: totalValues - mark.valuesBefore,
                                           height: deepest - mark.depth)
        deepest = max(deepest, mark.deepestOutside)
        return value
    }

    private func readUTF8(_ reader: inout ByteReader, count: UInt32, start: Int) throws(AMF0Error) -> String {
        guard count <= limits.maxStringBytes else {
            throw AMF0Error(.stringTooLong(bytes: count, limit: limits.maxStringBytes), at: start)
        }
        let bytes = try need(reader.readSlice(Int(count)), start)
        // Invalid UTF-8 is repaired (U+FFFD), as Flash players did, rather than rejected.
        return String(decoding: bytes, as: UTF8.self)
    }

    private func need<T>(_ value: T?, _ start: Int) throws(AMF0Error) -> T {
        guard let value else { throw AMF0Error(.truncated, at: start) }
        return value
    }
}
