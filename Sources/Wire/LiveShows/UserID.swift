/// A user id as a key: equal only to the same UTF-8 bytes.
///
/// User ids are opaque bytes from the app's identity provider. Swift's `String ==` (and a `String`'s hash) is
/// canonical equivalence, under which `zoë` (U+00EB) and `zoe` + U+0308 are one string: as keys of bans, timeouts,
/// sessions or role rules they would make two users one (issue 34 item 1: a host's privileges for whoever signs
/// the other form). Every collection and comparison of user ids in the shows uses this instead.
public struct UserID: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The id as it came.
    public let value: String

    /// Wraps an id.
    public init(_ value: String) {
        self.value = value
    }

    /// An id written in code (tests, declarations).
    public init(stringLiteral value: String) {
        self.value = value
    }

    public static func == (lhs: UserID, rhs: UserID) -> Bool {
        lhs.value.utf8.elementsEqual(rhs.value.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        var value = value
        value.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Whether two optional ids (nil: a visitor) are the same bytes.
    public static func same(_ lhs: String?, _ rhs: String?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (let lhs?, let rhs?): lhs.utf8.elementsEqual(rhs.utf8)
        default: false
        }
    }

    /// The id.
    public var description: String { value }
}
