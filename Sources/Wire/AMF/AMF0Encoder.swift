import ByteIO

/// Encodes AMF0 values (AMF0 spec §2). Never emits references: every value is written in full.
public enum AMF0 {
    /// Encodes values one after another, as in an RTMP command message body.
    /// - Parameter values: the values in order.
    /// - Returns: the encoded bytes.
    public static func encode(_ values: [AMF0Value]) -> [UInt8] {
        var writer = ByteWriter(capacity: 128)
        for value in values {
            encode(value, into: &writer)
        }
        return writer.bytes
    }

    /// Appends one encoded value.
    public static func encode(_ value: AMF0Value, into writer: inout ByteWriter) {
        switch value {
        case .number(let number):
            writer.writeUInt8(AMF0Marker.number)
            writer.writeDouble(number)
        case .boolean(let flag):
            writer.writeUInt8(AMF0Marker.boolean)
            writer.writeUInt8(flag ? 1 : 0)
        case .string(let string):
            let utf8 = Array(string.utf8)
            if utf8.count > Int(UInt16.max) {
                writer.writeUInt8(AMF0Marker.longString)
                writer.writeUInt32(UInt32(clamping: utf8.count))
                writer.writeBytes(utf8.prefix(Int(UInt32.max)))
            } else {
                writer.writeUInt8(AMF0Marker.string)
                writer.writeUInt16(UInt16(utf8.count))
                writer.writeBytes(utf8)
            }
        case .object(let object):
            writer.writeUInt8(AMF0Marker.object)
            encodeProperties(object, into: &writer)
        case .null:
            writer.writeUInt8(AMF0Marker.null)
        case .undefined:
            writer.writeUInt8(AMF0Marker.undefined)
        case .ecmaArray(let object):
            writer.writeUInt8(AMF0Marker.ecmaArray)
            writer.writeUInt32(UInt32(clamping: object.count))
            encodeProperties(object, into: &writer)
        case .strictArray(let elements):
            writer.writeUInt8(AMF0Marker.strictArray)
            writer.writeUInt32(UInt32(clamping: elements.count))
            for element in elements {
                encode(element, into: &writer)
            }
        case .date(let milliseconds, let timeZone):
            writer.writeUInt8(AMF0Marker.date)
            writer.writeDouble(milliseconds)
            writer.writeUInt16(UInt16(bitPattern: timeZone))
        }
    }

    /// Decodes every value in a complete AMF0 payload (e.g. a command message body).
    /// - Parameters:
    ///   - bytes: the payload.
    ///   - limits: bounds on depth, sizes and references.
    /// - Returns: the values in order.
    /// - Throws: `AMF0Error` when the payload is truncated or malformed.
    public static func decodeAll(_ bytes: [UInt8], limits: AMF0Limits = .default) throws(AMF0Error) -> [AMF0Value] {
        var reader = ByteReader(bytes)
        var decoder = AMF0Decoder(limits: limits)
        var values: [AMF0Value] = []
        while !reader.isAtEnd {
            values.append(try decoder.decodeValue(from: &reader))
        }
        return values
    }

    private static func encodeProperties(_ object: AMF0Object, into writer: inout ByteWriter) {
        for property in object where !property.key.isEmpty {
            let key = Array(property.key.utf8.prefix(Int(UInt16.max)))
            writer.writeUInt16(UInt16(key.count))
            writer.writeBytes(key)
            encode(property.value, into: &writer)
        }
        // object-end: an empty name (UTF-8-empty) followed by the object-end marker.
        writer.writeUInt16(0)
        writer.writeUInt8(AMF0Marker.objectEnd)
    }
}
