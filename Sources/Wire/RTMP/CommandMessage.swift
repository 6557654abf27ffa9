import AMF

/// An AMF0 command message (RTMP §7.1.1, type 20; type 17 with a leading 0 byte is read the same way):
/// command name, transaction id, command object, then optional arguments.
public struct CommandMessage: Sendable, Equatable {
    /// The command name (`connect`, `createStream`, `publish`, `_result`, `_error`, `onStatus`, ...).
    public var name: String
    /// The transaction id matching a reply to its request (0 when no reply is expected).
    public var transactionID: Double
    /// The command object (`.null` for most commands except `connect` and `_result` of `connect`).
    public var commandObject: AMF0Value
    /// The arguments after the command object.
    public var arguments: [AMF0Value]

    /// Creates a command.
    public init(name: String, transactionID: Double, commandObject: AMF0Value = .null, arguments: [AMF0Value] = []) {
        self.name = name
        self.transactionID = transactionID
        self.commandObject = commandObject
        self.arguments = arguments
    }

    /// Decodes a command from a message body.
    /// - Parameters:
    ///   - payload: the body of a type 20 message (or of a type 17 message, which starts with a 0 byte).
    ///   - isAMF3: whether the message is type 17.
    /// - Throws: `RTMPError` when the body is not a command.
    public init(payload: [UInt8], isAMF3: Bool = false) throws(RTMPError) {
        var body = payload
        if isAMF3, body.first == 0 { body.removeFirst() }
        let values: [AMF0Value]
        do {
            values = try AMF0.decodeAll(body)
        } catch {
            throw RTMPError.malformedMessage("command message: \(error)")
        }
        guard let name = values.first?.stringValue else {
            throw RTMPError.malformedMessage("command message does not start with a command name")
        }
        self.name = name
        transactionID = values.count > 1 ? values[1].numberValue ?? 0 : 0
        commandObject = values.count > 2 ? values[2] : .null
        arguments = values.count > 3 ? Array(values[3...]) : []
    }

    /// The AMF0 message body.
    public var payload: [UInt8] {
        AMF0.encode([.string(name), .number(transactionID), commandObject] + arguments)
    }

    /// The whole message.
    /// - Parameters:
    ///   - chunkStreamID: the chunk stream (3 for connection commands, 5 for stream commands by convention).
    ///   - streamID: the message stream id (0 for `connect`/`createStream`, the stream for `publish`/`play`).
    ///   - timestamp: the message timestamp.
    public func message(chunkStreamID: UInt32 = ChunkStreamID.command, streamID: UInt32 = 0,
                        timestamp: UInt32 = 0) -> RTMPMessage {
        RTMPMessage(chunkStreamID: chunkStreamID, timestamp: timestamp, type: .amf0Command, streamID: streamID,
                    payload: payload)
    }

    /// The info object of an `onStatus`, `_result` or `_error` (the first object among the arguments).
    public var info: StatusInfo? {
        for argument in arguments {
            if let object = argument.objectValue { return StatusInfo(object) }
        }
        return nil
    }
}

/// The level/code/description triple of a status info object (NetConnection and NetStream status events).
public struct StatusInfo: Sendable, Equatable {
    /// "status", "warning" or "error".
    public var level: String
    /// The status code, for example `NetStream.Publish.Start`.
    public var code: String
    /// The server's human description (may be empty).
    public var description: String

    /// Creates a status info.
    public init(level: String, code: String, description: String) {
        self.level = level
        self.code = code
        self.description = description
    }

    /// Reads the fields of an info object (missing fields are empty strings).
    public init(_ object: AMF0Object) {
        level = object["level"]?.stringValue ?? ""
        code = object["code"]?.stringValue ?? ""
        description = object["description"]?.stringValue ?? ""
    }

    /// The info object.
    public var object: AMF0Object {
        ["level": .string(level), "code": .string(code), "description": .string(description)]
    }

    /// Whether the level is "error".
    public var isError: Bool { level == "error" }
}
