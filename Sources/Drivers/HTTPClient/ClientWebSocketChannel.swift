import HTTP
import Transport
import WebSocket

/// The loop-thread side of a ``WebSocketClient``: the opening handshake over the connection, then its
/// ``WebSocketMachine`` (pings answered as they arrive, whether or not the caller is reading).
final class ClientWebSocketChannel: ConnectionHandler {
    private enum State {
        case handshaking(HTTPResponseDecoder)
        case open(WebSocketMachine)
        case closed
    }

    private let handshake: WebSocketClientHandshake
    private let request: HTTPRequestHead
    private let inbox: WebSocketInbox
    private let options: WebSocketClient.Options
    private let url: String
    private var state: State
    private var timer: Scheduled?
    var connection: Connection?

    init(handshake: WebSocketClientHandshake, request: HTTPRequestHead, inbox: WebSocketInbox,
         options: WebSocketClient.Options, url: String) {
        self.handshake = handshake
        self.request = request
        self.inbox = inbox
        self.options = options
        self.url = url
        var decoder = HTTPResponseDecoder()
        decoder.expectResponse(to: .get)
        state = .handshaking(decoder)
    }

    // MARK: ConnectionHandler

    func connectionDidOpen(_ connection: Connection) {
        connection.writeBufferLimit = options.writeBufferLimit
        do {
            try connection.write(request.encoded())
        } catch {
            connection.close()
            return
        }
        timer = connection.loop.scheduleOnLoop(after: options.connectTimeout) { [weak self, weak connection] in
            guard let self, case .handshaking = state else { return }
            inbox.didOpen(.failure(HTTPClientError(.timeout, "\(url) did not answer the WebSocket upgrade in time")))
            connection?.close()
        }
    }

    func connectionDidRead(_ connection: Connection, bytes: [UInt8]) {
        switch state {
        case .handshaking(var decoder):
            decoder.append(bytes)
            let part: HTTPResponseDecoder.Part?
            do {
                part = try decoder.next()
            } catch {
                fail(HTTPClientError(.protocolError, "invalid answer to the WebSocket upgrade from \(url): \(error)"))
                return
            }
            guard case .head(let head) = part else {
                state = .handshaking(decoder)
                return
            }
            let subprotocol: String?
            do {
                subprotocol = try handshake.validate(head)
            } catch {
                fail(HTTPClientError(.protocolError, "\(url) refused the WebSocket: \(error.description)"))
                return
            }
            timer?.cancel()
            timer = nil
            state = .open(WebSocketMachine(role: .client, maximumMessageSize: options.maximumMessageSize))
            inbox.didOpen(.success(subprotocol))
            let leftover = decoder.takeBufferedBytes()
            if !leftover.isEmpty { receive(leftover, on: connection) }
        case .open:
            receive(bytes, on: connection)
        case .closed:
            break
        }
    }

    func connectionDidDrain(_ connection: Connection) {
        inbox.didDrain()
    }

    func connectionDidClose(_ connection: Connection, error: TransportError?) {
        timer?.cancel()
        switch state {
        case .handshaking:
            let failure = error.map { HTTPClientError($0, url: url) }
                ?? HTTPClientError(.closed, "\(url) closed the connection during the WebSocket upgrade")
            inbox.didOpen(.failure(failure))
            state = .closed
            inbox.didClose(WebSocketClose(code: .abnormalClosure, reason: failure.description, initiatedByPeer: true))
        case .open(var machine):
            let actions = machine.connectionClosed()
            state = .open(machine)
            run(actions, on: connection)
            state = .closed
        case .closed:
            break
        }
        self.connection = nil
    }

    // MARK: Caller commands (on the loop thread)

    /// Sends a message. Returns true when the caller should wait for the queue to drain.
    func send(_ message: WebSocketMessage) throws(HTTPClientError) -> Bool {
        guard case .open(var machine) = state, let connection, let bytes = machine.send(message) else {
            throw HTTPClientError(.closed, "the WebSocket to \(url) is closed")
        }
        state = .open(machine)
        return write(bytes, on: connection)
    }

    func ping(_ payload: [UInt8]) throws(HTTPClientError) {
        guard case .open(var machine) = state, let connection, let bytes = machine.ping(payload) else {
            throw HTTPClientError(.closed, "the WebSocket to \(url) is closed")
        }
        state = .open(machine)
        _ = write(bytes, on: connection)
    }

    func close(code: WebSocketCloseCode, reason: String) {
        guard case .open(var machine) = state, let connection else { return }
        let actions = machine.close(code: code, reason: reason)
        state = .open(machine)
        run(actions, on: connection)
        timer?.cancel()
        timer = connection.loop.scheduleOnLoop(after: options.closeTimeout) { [weak self] in
            guard let self, case .open(var machine) = state, let connection = self.connection else { return }
            let actions = machine.closeTimedOut()
            state = .open(machine)
            run(actions, on: connection)
        }
    }

    // MARK: Machine

    private func receive(_ bytes: [UInt8], on connection: Connection) {
        guard case .open(var machine) = state else { return }
        machine.append(bytes)
        state = .open(machine)
        decode(on: connection)
    }

    /// Decodes batches until a message is handed over (then waits for the caller's next pull) or bytes run out.
    private func decode(on connection: Connection) {
        while !inbox.isHeld, case .open(var machine) = state {
            let actions = machine.next()
            state = .open(machine)
            guard !actions.isEmpty else { break }
            run(actions, on: connection)
        }
        // Undecoded bytes are bounded: past the limit, the socket waits (and the server sees a slow reader).
        if case .open(let machine) = state, machine.bufferedByteCount >= options.receiveBufferLimit {
            connection.pauseReading()
        } else {
            connection.resumeReading()
        }
    }

    /// The caller asks for the next message.
    func pull() {
        guard let connection else { return }
        decode(on: connection)
    }

    @discardableResult
    private func write(_ bytes: [UInt8], on connection: Connection) -> Bool {
        do {
            try connection.write(bytes)
        } catch {
            connection.close()
            return false
        }
        return connection.queuedBytes > options.sendHighWatermark
    }

    private func run(_ actions: [WebSocketMachine.Action], on connection: Connection) {
        for action in actions {
            switch action {
            case .write(let bytes):
                write(bytes, on: connection)
            case .message(let message):
                inbox.deliver(message)
            case .pong:
                inbox.didReceivePong()
            case .closeConnection(let waitForPeer):
                guard waitForPeer else {
                    connection.closeAfterFlush(timeout: options.closeTimeout)
                    continue
                }
                // RFC 6455 §7.1.1: the server closes TCP first; give it a moment, then close anyway.
                timer?.cancel()
                timer = connection.loop.scheduleOnLoop(after: options.closeTimeout) { [weak connection] in
                    connection?.closeAfterFlush(timeout: .seconds(1))
                }
            case .closed(let close):
                inbox.didClose(close)
            }
        }
    }

    private func fail(_ error: HTTPClientError) {
        inbox.didOpen(.failure(error))
        state = .closed
        inbox.didClose(WebSocketClose(code: .abnormalClosure, reason: error.description, initiatedByPeer: true))
        connection?.close()
    }
}
