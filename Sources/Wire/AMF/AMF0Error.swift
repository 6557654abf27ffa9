/// Why AMF0 bytes could not be decoded.
public struct AMF0Error: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: Sendable, Equatable {
        case truncated
        case unknownMarker(UInt8)
        case unsupportedMarker(UInt8)
        case tooDeep(limit: Int)
        case tooManyElements(count: UInt32, limit: Int)
        case stringTooLong(bytes: UInt32, limit: Int)
        case badReference(index: UInt16)
        case tooManyReferences(limit: Int)
        case missingObjectEnd
    }

    let code: Code
    /// Where in the input the problem was found.
    public let offset: Int

    init(_ code: Code, at offset: Int) {
        self.code = code
        self.offset = offset
    }

    /// A human description of what was wrong.
    public var description: String {
        let what: String
        switch code {
        case .truncated: what = "the value is cut short"
        case .unknownMarker(let marker): what = "unknown type marker 0x\(hex(marker))"
        case .unsupportedMarker(let marker): what = "type marker 0x\(hex(marker)) is not allowed in AMF0 messages"
        case .tooDeep(let limit): what = "values nested deeper than \(limit) levels"
        case .tooManyElements(let count, let limit): what = "\(count) elements, more than the limit of \(limit)"
        case .stringTooLong(let bytes, let limit): what = "a \(bytes)-byte string, more than the limit of \(limit)"
        case .badReference(let index): what = "reference to object #\(index), which was not sent"
        case .tooManyReferences(let limit): what = "more than \(limit) referenceable objects"
        case .missingObjectEnd: what = "an object property has an empty name but no object-end marker"
        }
        return "malformed AMF0 at byte \(offset): \(what)"
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
