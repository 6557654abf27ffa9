import JSON

/// The JSON codec of the live-show protocol (`docs/live-protocol.md`), both ways: the server decodes requests and
/// encodes replies and events; a client does the opposite. Pure: bytes in, values out.
public enum LiveCodec {
    /// The largest message either side accepts (a welcome with 500 full messages is about 300 KB).
    public static let maximumServerMessageSize = 1 << 20
    /// The largest request the server accepts: a 500-character message is at most 2 KB of UTF-8, escaped 12 KB.
    public static let maximumRequestSize = 16 * 1024
    /// Requests are flat: an object with at most one nested object.
    static let maximumRequestDepth = 4

    /// A request that could not be read, with its id when the id itself could be read (so the error reply can
    /// name it).
    public struct RequestError: Error, Sendable, Hashable {
        /// The request's id, if readable.
        public var id: Int64?
        /// The `invalid` error to send back.
        public var error: ShowError
    }

    /// A server message a client could not read.
    public struct MessageError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong.
        public var reason: String
        /// The reason.
        public var description: String { reason }
    }

    // MARK: Requests

    /// Decodes a request (the server side).
    /// - Parameter bytes: one WebSocket text message.
    /// - Returns: the request.
    /// - Throws: ``RequestError`` with an `invalid` error: too large, not JSON, not an object, no id, unknown op,
    ///   a missing or wrong field.
    public static func decodeRequest(_ bytes: [UInt8]) throws(RequestError) -> ClientRequest {
        guard bytes.count <= maximumRequestSize else {
            throw RequestError(id: nil, error: ShowError(.invalid, "a request is at most \(maximumRequestSize) bytes"))
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maximumDepth: maximumRequestDepth)
        } catch {
            throw RequestError(id: nil, error: ShowError(.invalid, "the request is not JSON: \(error)"))
        }
        var id: Int64?
        do throws(ShowError) {
            let fields = try FieldReader(value, context: "the request")
            guard let readID = try fields.optionalInteger("id"), readID >= 0 else {
                throw ShowError(.invalid, "the request has no id: 'id' must be a whole number from 0 to 2^53")
            }
            id = readID
            return ClientRequest(id: readID, try request(fields))
        } catch {
            throw RequestError(id: id, error: error)
        }
    }

    private static func request(_ fields: FieldReader) throws(ShowError) -> Request {
        let op = try fields.string("op")
        switch op {
        case "join":
            let position = try fields.optionalObject("since").map { since throws(ShowError) in
                ChatPosition(epoch: try since.string("epoch"), seq: try since.integer("seq"))
            }
            return .join(since: position, visitor: try fields.optionalString("visitor"),
                         name: try fields.optionalString("name"))
        case "leave": return .leave
        case "send": return .send(text: try fields.string("text"))
        case "react": return .react(try fields.choice("reaction", Reaction.self))
        case "goLive":
            guard fields.has("tiles") else { return .goLive(tiles: []) }
            var tiles: [TileKind] = []
            for element in try fields.array("tiles") {
                tiles.append(try FieldReader.choice(element, TileKind.self, context: "the request.tiles"))
            }
            return .goLive(tiles: tiles)
        case "end": return .end
        case "ingest": return .ingest(renew: try fields.bool("renew", default: false))
        case "setMain": return .setMain(try fields.optionalChoice("tile", TileKind.self))
        case "deleteMessage": return .deleteMessage(id: try fields.integer("message"))
        case "pin": return .pin(id: try fields.integer("message"))
        case "unpin": return .unpin
        case "timeout":
            return .timeout(user: try fields.string("user"), seconds: try clampedInt(fields.integer("seconds")))
        case "setSlow": return .setSlow(seconds: try clampedInt(fields.integer("seconds")))
        case "clearChat": return .clearChat
        case "kick": return .kick(user: try fields.string("user"))
        case "ban": return .ban(user: try fields.string("user"))
        case "unban": return .unban(user: try fields.string("user"))
        default:
            throw ShowError(.invalid, "unknown op '\(op.prefix(40))'")
        }
    }

    private static func clampedInt(_ value: Int64) -> Int {
        Int(clamping: value)
    }

    /// Encodes a request (the client side).
    public static func encode(_ request: ClientRequest) -> [UInt8] {
        var members: [(String, JSONValue)] = [("op", .string(request.request.op)), ("id", .integer(request.id))]
        switch request.request {
        case .join(let since, let visitor, let name):
            if let since {
                members.append(("since", .object([("epoch", .string(since.epoch)), ("seq", .integer(since.seq))])))
            }
            if let visitor { members.append(("visitor", .string(visitor))) }
            if let name { members.append(("name", .string(name))) }
        case .leave, .end, .unpin, .clearChat:
            break
        case .send(let text): members.append(("text", .string(text)))
        case .react(let reaction): members.append(("reaction", .string(reaction.rawValue)))
        case .goLive(let tiles): members.append(("tiles", .array(tiles.map { .string($0.rawValue) })))
        case .ingest(let renew): members.append(("renew", .bool(renew)))
        case .setMain(let tile): members.append(("tile", .optional(tile?.rawValue)))
        case .deleteMessage(let id), .pin(let id): members.append(("message", .integer(id)))
        case .timeout(let user, let seconds):
            members.append(("user", .string(user)))
            members.append(("seconds", .integer(seconds)))
        case .setSlow(let seconds): members.append(("seconds", .integer(seconds)))
        case .kick(let user), .ban(let user), .unban(let user): members.append(("user", .string(user)))
        }
        return JSONWriter.bytes(.object(members))
    }
}
