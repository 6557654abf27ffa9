import ByteIO

/// One WebSocket connection after the opening handshake, without I/O (RFC 6455 §5-7): bytes in, messages and
/// bytes out.
///
/// It reassembles fragmented messages (control frames may come between fragments), checks text for UTF-8 as it
/// arrives (1007 at the first bad byte), enforces the message size limit (1009), answers pings, and runs the
/// closing handshake. A peer's protocol error fails the connection: a close frame with the code, then the
/// connection closes. The server closes TCP first (§7.1.1); a client waits for the server to do so.
public struct WebSocketMachine: Sendable {
    /// Which end of the connection this is.
    public enum Role: Sendable, Equatable {
        /// Receives masked frames, sends unmasked ones.
        case server
        /// Receives unmasked frames, sends masked ones.
        case client
    }

    /// What the driver does next.
    public enum Action: Sendable, Equatable {
        /// Send these bytes.
        case write([UInt8])
        /// A whole message arrived.
        case message(WebSocketMessage)
        /// A pong arrived (an answer to our ping, or a heartbeat).
        case pong([UInt8])
        /// Close the TCP connection once the queued bytes are sent. With `waitForPeer`, first give the peer a moment
        /// to close it, reading and dropping what it still sends, then close anyway: a client waits for the server
        /// (§7.1.1: the server closes first), and either side that failed the connection lets the peer's frames in
        /// flight arrive, so that the peer reads the close frame rather than a reset.
        case closeConnection(waitForPeer: Bool)
        /// The WebSocket is closed; this comes once, with the code and reason.
        case closed(WebSocketClose)

        /// A message or pong ends a batch of ``WebSocketMachine/next()``: the driver may answer before what follows.
        var endsBatch: Bool {
            switch self {
            case .message, .pong: true
            case .write, .closeConnection, .closed: false
            }
        }
    }

    private struct Assembly: Sendable {
        var opcode: WebSocketOpcode
        var bytes: [UInt8] = []
        var validator = UTF8Validator()
    }

    private struct Reading: Sendable {
        /// The message being reassembled, if any.
        var message: Assembly?
        /// The frame being read and, for a control frame, its payload so far.
        var frame: WebSocketFrameHeader?
        var control: [UInt8] = []
    }

    private enum State: Sendable {
        /// Messages flow both ways.
        case open
        /// We sent a close frame and wait for the peer's (§7.1.2); what arrives meanwhile is read and dropped.
        case closeSent(WebSocketClose)
        /// Done: nothing more is read or sent.
        case closed
    }

    /// Which end this is.
    public let role: Role
    /// The largest message accepted, in bytes (larger ones fail the connection with 1009).
    public let maximumMessageSize: Int
    private var decoder: WebSocketFrameDecoder
    private var reading = Reading()
    private var state = State.open
    private var random: any RandomNumberGenerator & Sendable

    /// Creates the machine of an open WebSocket.
    /// - Parameters:
    ///   - role: server or client.
    ///   - maximumMessageSize: the largest message accepted.
    ///   - random: the source of client masking keys (§5.3 wants them unpredictable); the system generator by
    ///     default, a seeded one in tests.
    public init(role: Role, maximumMessageSize: Int,
                random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) {
        self.role = role
        self.maximumMessageSize = maximumMessageSize
        self.random = random
        decoder = WebSocketFrameDecoder(expecting: role == .server ? .masked : .unmasked,
                                        maximumPayloadLength: maximumMessageSize)
    }

    /// Bytes appended and not decoded yet.
    public var bufferedByteCount: Int { decoder.bufferedByteCount }

    /// True while messages may be sent.
    public var isOpen: Bool {
        if case .open = state { return true }
        return false
    }

    /// Adds bytes from the peer; ``next()`` decodes them.
    public mutating func append(_ bytes: [UInt8]) {
        if case .closed = state { return }
        decoder.append(bytes)
    }

    /// Decodes appended bytes up to the next message (or pong, or close), and returns what to do about it; empty
    /// when more bytes are needed. Call until empty: a driver runs each batch before asking for the next, so an
    /// answer to a message (an echo) goes out before whatever a later frame causes (a close).
    public mutating func next() -> [Action] {
        if case .closed = state { return [] }
        var actions: [Action] = []
        do {
            while let part = try decoder.next() {
                // Only what this part added is looked at: a read of 10,000 pings is 10,000 pongs in one batch, and
                // scanning the whole batch after each part made that read quadratic (minutes for a ping flood).
                let added = actions.count
                try handle(part, into: &actions)
                if case .closed = state { break }
                if actions[added...].contains(where: \.endsBatch) { break }
            }
        } catch {
            actions += fail(error)
        }
        return actions
    }

    /// Appends `bytes` and decodes everything: ``append(_:)`` and ``next()`` until it is empty. For callers that
    /// send nothing in answer to a message (tests, a receiving client).
    public mutating func received(_ bytes: [UInt8]) -> [Action] {
        append(bytes)
        var actions: [Action] = []
        while case let batch = next(), !batch.isEmpty {
            actions += batch
        }
        return actions
    }

    /// Encodes a message as one frame.
    /// - Returns: the bytes to send, or nil once a close has started (messages may no longer be sent).
    public mutating func send(_ message: WebSocketMessage) -> [UInt8]? {
        guard isOpen else { return nil }
        return frame(WebSocketFrame(opcode: message.opcode, payload: message.payload))
    }

    /// Encodes a ping (at most 125 bytes of payload).
    /// - Returns: the bytes to send, or nil once a close has started.
    public mutating func ping(_ payload: [UInt8] = []) -> [UInt8]? {
        guard isOpen else { return nil }
        return frame(WebSocketFrame(opcode: .ping, payload: Array(payload.prefix(125))))
    }

    /// Starts the closing handshake (§7.1.2): sends a close frame and waits for the peer's.
    /// - Parameters:
    ///   - code: a sendable code (1000, 1001, 1008, 3000-4999...).
    ///   - reason: text, cut to fit a control frame.
    public mutating func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") -> [Action] {
        guard isOpen else { return [] }
        precondition(code.isSendable, "close code \(code) may not be sent")
        let payload = WebSocketFrame.closePayload(code: code, reason: reason)
        let bytes = frame(WebSocketFrame(opcode: .close, payload: payload))
        state = .closeSent(WebSocketClose(code: code, reason: reason, initiatedByPeer: false))
        return [.write(bytes)]
    }

    /// The peer did not answer our close frame in time: give up on it.
    public mutating func closeTimedOut() -> [Action] {
        guard case .closeSent(let close) = state else { return [] }
        state = .closed
        return [.closeConnection(waitForPeer: false), .closed(close)]
    }

    /// The TCP connection ended. Without a completed closing handshake this is an abnormal closure (1006).
    public mutating func connectionClosed() -> [Action] {
        switch state {
        case .closed:
            return []
        case .open:
            state = .closed
            return [.closed(WebSocketClose(code: .abnormalClosure, initiatedByPeer: true))]
        case .closeSent(let close):
            state = .closed
            return [.closed(close)]
        }
    }

    // MARK: - Receiving

    private mutating func handle(_ part: WebSocketFrameDecoder.Part,
                                 into actions: inout [Action]) throws(WebSocketError) {
        switch part {
        case .header(let header):
            try begin(header)
        case .payload(let bytes):
            guard let frame = reading.frame else { return }
            if frame.opcode.isControl {
                reading.control += bytes
            } else if var message = reading.message {
                if message.opcode == .text && !message.validator.validate(bytes) {
                    throw WebSocketError(.invalidPayload, "a text message is not valid UTF-8")
                }
                if case .open = state { message.bytes += bytes }
                reading.message = message
            }
        case .end:
            guard let frame = reading.frame else { return }
            reading.frame = nil
            if frame.opcode.isControl {
                let payload = reading.control
                reading.control = []
                try control(frame.opcode, payload: payload, into: &actions)
            } else if frame.fin, let message = reading.message {
                reading.message = nil
                try finish(message, into: &actions)
            }
        }
    }

    private mutating func begin(_ header: WebSocketFrameHeader) throws(WebSocketError) {
        switch header.opcode {
        case .text, .binary:
            guard reading.message == nil else {
                throw .protocolError("a new message began before the fragmented one before it ended")
            }
            reading.message = Assembly(opcode: header.opcode)
        case .continuation:
            guard reading.message != nil else { throw .protocolError("a continuation frame without a message") }
        case .close, .ping, .pong:
            break
        }
        if !header.opcode.isControl, let message = reading.message,
           message.bytes.count + header.payloadLength > maximumMessageSize {
            throw WebSocketError(.messageTooBig, "a message larger than \(maximumMessageSize) bytes")
        }
        reading.frame = header
    }

    private mutating func finish(_ message: Assembly, into actions: inout [Action]) throws(WebSocketError) {
        guard case .open = state else { return }
        switch message.opcode {
        case .text:
            guard message.validator.isComplete else {
                throw WebSocketError(.invalidPayload, "a text message ends inside a UTF-8 sequence")
            }
            actions.append(.message(.text(String(decoding: message.bytes, as: UTF8.self))))
        default:
            actions.append(.message(.binary(message.bytes)))
        }
    }

    private mutating func control(_ opcode: WebSocketOpcode, payload: [UInt8],
                                  into actions: inout [Action]) throws(WebSocketError) {
        switch opcode {
        case .ping:
            if isOpen { actions.append(.write(frame(WebSocketFrame(opcode: .pong, payload: payload)))) }
        case .pong:
            actions.append(.pong(payload))
        case .close:
            let received = try Self.parseClose(payload)
            let waitForPeer = role == .client
            switch state {
            case .open:
                // §5.5.1: answer with a close frame echoing the code (none if the peer sent none).
                let answer = received.code == .noStatusReceived
                    ? [] : WebSocketFrame.closePayload(code: received.code, reason: "")
                actions.append(.write(frame(WebSocketFrame(opcode: .close, payload: answer))))
                state = .closed
                actions.append(.closeConnection(waitForPeer: waitForPeer))
                actions.append(.closed(received))
            case .closeSent(let sent):
                state = .closed
                actions.append(.closeConnection(waitForPeer: waitForPeer))
                actions.append(.closed(sent))
            case .closed:
                break
            }
        case .text, .binary, .continuation:
            break
        }
    }

    /// §5.5.1 and §7.4: an empty payload, or a sendable code and a UTF-8 reason.
    private static func parseClose(_ payload: [UInt8]) throws(WebSocketError) -> WebSocketClose {
        guard !payload.isEmpty else { return WebSocketClose(code: .noStatusReceived, initiatedByPeer: true) }
        guard payload.count >= 2 else { throw .protocolError("a close frame with a one-byte payload") }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isSendable else { throw .protocolError("a close frame with the invalid code \(code.rawValue)") }
        let reasonBytes = Array(payload[2...])
        guard let reason = UTF8Text.validated(reasonBytes) else {
            throw WebSocketError(.invalidPayload, "a close reason that is not UTF-8")
        }
        return WebSocketClose(code: code, reason: reason, initiatedByPeer: true)
    }

    // MARK: - Sending

    private mutating func frame(_ frame: WebSocketFrame) -> [UInt8] {
        frame.encoded(maskingKey: role == .client ? random.next() : nil)
    }

    /// Fails the connection (§7.1.7): a close frame with the error's code unless one was sent already, then close.
    private mutating func fail(_ error: WebSocketError) -> [Action] {
        var actions: [Action] = []
        if case .open = state {
            let payload = WebSocketFrame.closePayload(code: error.closeCode, reason: error.description)
            actions.append(.write(frame(WebSocketFrame(opcode: .close, payload: payload))))
        }
        state = .closed
        actions.append(.closeConnection(waitForPeer: true))
        actions.append(.closed(WebSocketClose(code: error.closeCode, reason: error.description,
                                              initiatedByPeer: false)))
        return actions
    }
}
