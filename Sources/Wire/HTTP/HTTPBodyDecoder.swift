import ByteIO

/// Reads one message body as its framing says (RFC 9112 §6.3), from the connection's buffer: what the request and
/// response decoders share.
struct HTTPBodyDecoder: Sendable {
    enum Part: Sendable, Equatable {
        case data([UInt8])
        case end
    }

    private enum State: Sendable {
        case length(remaining: Int)
        case chunked(ChunkedDecoder)
        case untilClose
    }

    private var state: State

    init(_ framing: HTTPBodyFraming, limits: HTTPLimits) {
        switch framing {
        case .none: state = .length(remaining: 0)
        case .length(let count): state = .length(remaining: count)
        case .chunked: state = .chunked(ChunkedDecoder(limits: limits))
        case .untilClose: state = .untilClose
        }
    }

    /// True for a body that only the end of the connection ends.
    var endsWithConnection: Bool {
        if case .untilClose = state { return true }
        return false
    }

    /// The next piece of the body, or nil when more bytes are needed.
    mutating func next(from buffer: inout InputBuffer) throws(HTTPError) -> Part? {
        switch state {
        case .length(let remaining):
            if remaining == 0 { return .end }
            guard !buffer.isEmpty else { return nil }
            let count = min(remaining, buffer.count)
            state = .length(remaining: remaining - count)
            return .data(buffer.read(count))
        case .chunked(var decoder):
            let part = try decoder.next(from: &buffer)
            state = .chunked(decoder)
            switch part {
            case .data(let bytes): return .data(bytes)
            case .end: return .end
            case nil: return nil
            }
        case .untilClose:
            guard !buffer.isEmpty else { return nil }
            return .data(buffer.readAll())
        }
    }
}
