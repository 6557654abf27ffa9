import JSON

/// Reads the members of one JSON object for the codec, turning every missing or mistyped field into an `invalid`
/// error that names it.
struct FieldReader {
    let value: JSONValue
    /// Where the object sits, for messages ("message.user").
    let context: String

    init(_ value: JSONValue, context: String) throws(ShowError) {
        guard value.objectValue != nil else {
            throw ShowError(.invalid, "\(context) must be a JSON object, not \(value.typeName)")
        }
        self.value = value
        self.context = context
    }

    func has(_ name: String) -> Bool {
        value[name].map { !$0.isNull } ?? false
    }

    func string(_ name: String) throws(ShowError) -> String {
        guard let text = try optionalString(name) else { throw missing(name, "a string") }
        return text
    }

    func optionalString(_ name: String) throws(ShowError) -> String? {
        guard let member = value[name], !member.isNull else { return nil }
        guard let text = member.stringValue else { throw wrong(name, "a string", member) }
        return text
    }

    func integer(_ name: String) throws(ShowError) -> Int64 {
        guard let number = try optionalInteger(name) else { throw missing(name, "a whole number") }
        return number
    }

    func optionalInteger(_ name: String) throws(ShowError) -> Int64? {
        guard let member = value[name], !member.isNull else { return nil }
        guard let number = member.integerValue else { throw wrong(name, "a whole number", member) }
        return number
    }

    func bool(_ name: String, default fallback: Bool) throws(ShowError) -> Bool {
        guard let member = value[name], !member.isNull else { return fallback }
        guard let flag = member.boolValue else { throw wrong(name, "true or false", member) }
        return flag
    }

    func object(_ name: String) throws(ShowError) -> FieldReader {
        guard let member = value[name], !member.isNull else { throw missing(name, "an object") }
        return try FieldReader(member, context: "\(context).\(name)")
    }

    func optionalObject(_ name: String) throws(ShowError) -> FieldReader? {
        guard let member = value[name], !member.isNull else { return nil }
        return try FieldReader(member, context: "\(context).\(name)")
    }

    func array(_ name: String) throws(ShowError) -> [JSONValue] {
        guard let member = value[name], !member.isNull else { throw missing(name, "an array") }
        guard let elements = member.arrayValue else { throw wrong(name, "an array", member) }
        return elements
    }

    /// A string member that must be one of an enum's raw values.
    func choice<Choice: RawRepresentable & CaseIterable>(_ name: String, _ type: Choice.Type) throws(ShowError)
        -> Choice where Choice.RawValue == String {
        guard let choice = try optionalChoice(name, type) else { throw missing(name, Self.oneOf(type)) }
        return choice
    }

    func optionalChoice<Choice: RawRepresentable & CaseIterable>(_ name: String, _ type: Choice.Type)
        throws(ShowError) -> Choice? where Choice.RawValue == String {
        guard let text = try optionalString(name) else { return nil }
        guard let choice = Choice(rawValue: text) else {
            throw ShowError(.invalid, "\(context).\(name) must be \(Self.oneOf(type)), not '\(text.prefix(40))'")
        }
        return choice
    }

    static func choice<Choice: RawRepresentable & CaseIterable>(_ element: JSONValue, _ type: Choice.Type,
                                                                 context: String) throws(ShowError) -> Choice
    where Choice.RawValue == String {
        guard let text = element.stringValue, let choice = Choice(rawValue: text) else {
            throw ShowError(.invalid, "\(context) must hold \(oneOf(type)), found \(element.typeName)")
        }
        return choice
    }

    static func oneOf<Choice: RawRepresentable & CaseIterable>(_ type: Choice.Type) -> String
    where Choice.RawValue == String {
        "one of " + type.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
    }

    private func missing(_ name: String, _ kind: String) -> ShowError {
        ShowError(.invalid, "\(context).\(name) is missing: it must be \(kind)")
    }

    private func wrong(_ name: String, _ kind: String, _ found: JSONValue) -> ShowError {
        ShowError(.invalid, "\(context).\(name) must be \(kind), not \(found.typeName)")
    }
}
