/// One value of Action Message Format version 0 (AMF0 spec, §2).
public enum AMF0Value: Sendable, Equatable {
    /// number-marker 0x00: an IEEE-754 double.
    case number(Double)
    /// boolean-marker 0x01.
    case boolean(Bool)
    /// string-marker 0x02, or long-string-marker 0x0C when longer than 65535 UTF-8 bytes.
    case string(String)
    /// object-marker 0x03 (a typed-object 0x10 decodes to this too; its class name is dropped).
    case object(AMF0Object)
    /// null-marker 0x05.
    case null
    /// undefined-marker 0x06.
    case undefined
    /// ecma-array-marker 0x08: an associative array.
    case ecmaArray(AMF0Object)
    /// strict-array-marker 0x0A: an ordered array.
    case strictArray([AMF0Value])
    /// date-marker 0x0B: milliseconds since 1970-01-01 UTC and a time-zone field (reserved, should be 0).
    case date(millisecondsSince1970: Double, timeZoneMinutes: Int16)

    /// The number, if this is a number.
    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The boolean, if this is a boolean.
    public var boolValue: Bool? {
        if case .boolean(let value) = self { return value }
        return nil
    }

    /// The properties, if this is an object or an ECMA array.
    public var objectValue: AMF0Object? {
        switch self {
        case .object(let object), .ecmaArray(let object): return object
        case .number, .boolean, .string, .null, .undefined, .strictArray, .date: return nil
        }
    }

    /// The value of a property, if this is an object or an ECMA array that has it.
    public subscript(key: String) -> AMF0Value? {
        objectValue?[key]
    }
}

/// One key/value pair of an AMF0 object or ECMA array.
public struct AMF0Property: Sendable, Equatable {
    /// The property name (UTF-8, at most 65535 bytes on the wire).
    public var key: String
    /// The property value.
    public var value: AMF0Value

    /// Creates a property.
    public init(key: String, value: AMF0Value) {
        self.key = key
        self.value = value
    }
}

/// The ordered properties of an AMF0 object or ECMA array.
public struct AMF0Object: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence {
    /// The properties in wire order.
    public var properties: [AMF0Property]

    /// Creates an object from properties in order.
    public init(_ properties: [AMF0Property] = []) {
        self.properties = properties
    }

    /// Creates an object from a literal, keeping the literal's order.
    public init(dictionaryLiteral elements: (String, AMF0Value)...) {
        self.properties = elements.map { AMF0Property(key: $0.0, value: $0.1) }
    }

    /// The value of the first property with this key; setting replaces it in place or appends it,
    /// and setting nil removes it.
    public subscript(key: String) -> AMF0Value? {
        get { properties.first { $0.key == key }?.value }
        set {
            let index = properties.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let index?, let value?): properties[index].value = value
            case (let index?, nil): properties.remove(at: index)
            case (nil, let value?): properties.append(AMF0Property(key: key, value: value))
            case (nil, nil): break
            }
        }
    }

    /// How many properties there are.
    public var count: Int { properties.count }

    /// Iterates the properties in wire order.
    public func makeIterator() -> IndexingIterator<[AMF0Property]> {
        properties.makeIterator()
    }
}
