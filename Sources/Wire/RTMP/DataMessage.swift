import AMF

/// An AMF0 data message (RTMP §7.1.2, type 18): a list of AMF0 values, such as
/// `@setDataFrame`, `onMetaData`, {metadata} from a publisher or `onMetaData`, {metadata} to a player.
public struct DataMessage: Sendable, Equatable {
    /// The values in order.
    public var values: [AMF0Value]

    /// Creates a data message.
    public init(values: [AMF0Value]) {
        self.values = values
    }

    /// Decodes a data message body.
    /// - Throws: `RTMPError` when the body is not valid AMF0.
    public init(payload: [UInt8]) throws(RTMPError) {
        do {
            values = try AMF0.decodeAll(payload)
        } catch {
            throw RTMPError.malformedMessage("data message: \(error)")
        }
    }

    /// What a publisher sends to set the stream's metadata: `@setDataFrame`, `onMetaData`, ECMA array.
    /// - Parameter metadata: the properties (duration, width, height, videocodecid, ...).
    public static func setDataFrame(_ metadata: AMF0Object) -> DataMessage {
        DataMessage(values: [.string("@setDataFrame"), .string("onMetaData"), .ecmaArray(metadata)])
    }

    /// What a server sends to players: `onMetaData`, ECMA array.
    public static func onMetaData(_ metadata: AMF0Object) -> DataMessage {
        DataMessage(values: [.string("onMetaData"), .ecmaArray(metadata)])
    }

    /// The metadata, when this is `@setDataFrame onMetaData {…}` or `onMetaData {…}`.
    public var metadata: AMF0Object? {
        var rest = values[...]
        if rest.first?.stringValue == "@setDataFrame" { rest = rest.dropFirst() }
        guard rest.first?.stringValue == "onMetaData" else { return nil }
        return rest.dropFirst().first?.objectValue
    }

    /// The AMF0 message body.
    public var payload: [UInt8] { AMF0.encode(values) }
}
