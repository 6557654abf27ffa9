/// One server connection's HTTP/1.1 exchange, without I/O: requests in, responses out, in order.
///
/// The driver feeds received bytes to ``received(_:bodyLimit:)`` and runs the actions; for each `.request` it
/// answers with ``startResponse(_:bodyLength:)``, ``responseBody(_:)`` and ``endResponse()`` (or
/// ``switchProtocols(_:)``), and for each `.reject` with the error's status. The machine decides keep-alive
/// (RFC 9112 §9.3), body framing (`Content-Length` or chunked), `100 Continue`, and when to close; pipelined
/// requests wait in the decoder until the response before them is complete.
public struct HTTPServerMachine: Sendable {
    /// What the driver does next.
    public enum Action: Sendable, Equatable {
        /// Send these bytes.
        case write([UInt8])
        /// A whole request with its body: answer it (one request is answered at a time).
        case request(HTTPRequestHead, body: [UInt8])
        /// The peer sent something unacceptable: answer with ``HTTPError/status`` (the machine adds
        /// `Connection: close`), after which the connection closes.
        case reject(HTTPError)
        /// Close once the queued bytes are sent. With `linger`, keep reading (and discarding) briefly first, so
        /// that a peer still sending reads our answer instead of a reset.
        case close(linger: Bool)
    }

    /// Where the connection is, for the driver's timers.
    public enum Phase: Sendable, Equatable {
        /// Between requests with nothing received: the keep-alive timeout runs.
        case idle
        /// Part of a request head has arrived: the head timeout runs.
        case readingHead
        /// The head is complete and the body is arriving.
        case readingBody
        /// A request (or a rejection) was handed to the driver and no response has started.
        case handling
        /// A response is being sent.
        case responding
        /// The connection switched protocols (WebSocket) or is closing: HTTP is over.
        case done
    }

    private struct Exchange: Sendable {
        var method: HTTPMethod
        var version: HTTPVersion
        var keepAlive: Bool
        var rejected: Bool
    }

    private struct Upload: Sendable {
        var head: HTTPRequestHead
        var body: [UInt8]
        var limit: Int
    }

    private enum Outgoing: Sendable {
        case length(remaining: Int)
        case chunked
        case untilClose
        case discarded
    }

    private struct Response: Sendable {
        var exchange: Exchange
        var outgoing: Outgoing
        var keepAlive: Bool
    }

    private enum State: Sendable {
        case waiting
        case receiving(Upload)
        case handling(Exchange)
        case responding(Response)
        case done
    }

    private var decoder: HTTPRequestDecoder
    private var state = State.waiting

    /// Creates the machine of a new connection.
    public init(limits: HTTPLimits = HTTPLimits()) {
        decoder = HTTPRequestDecoder(limits: limits)
    }

    // `phase` and `wantsMoreBytes` are stored, set by the calls that change them: a driver keeps its machine in a
    // class, and reading a computed property of it there copies the whole machine (retaining its head, fields and
    // buffer) to call the getter in another module — twice per request.

    /// Where the connection is.
    public private(set) var phase = Phase.idle

    /// False while bytes of later requests pile up behind the one being answered: the driver pauses reading until
    /// a call makes it true again, so a pipelining peer cannot grow the buffer.
    public private(set) var wantsMoreBytes = true

    private mutating func stateChanged() {
        switch state {
        case .waiting:
            phase = decoder.isAtMessageBoundary ? .idle : .readingHead
            wantsMoreBytes = true
        case .receiving:
            phase = .readingBody
            wantsMoreBytes = true
        case .handling(let exchange):
            phase = .handling
            wantsMoreBytes = exchange.rejected || decoder.bufferedByteCount < decoder.limits.maximumHeadSize
        case .responding(let response):
            phase = .responding
            wantsMoreBytes = response.exchange.rejected
                || decoder.bufferedByteCount < decoder.limits.maximumHeadSize
        case .done:
            phase = .done
            wantsMoreBytes = false
        }
    }

    /// Bytes arrived from the peer.
    /// - Parameter bodyLimit: the largest body accepted for a request head (its route's limit); a larger body is
    ///   rejected with 413 before it is read.
    public mutating func received(_ bytes: [UInt8], bodyLimit: (HTTPRequestHead) -> Int) -> [Action] {
        switch state {
        case .done:
            return []
        case .handling(let exchange) where exchange.rejected:
            return []  // what follows a rejected request is discarded (the connection is about to close)
        case .responding(let response) where response.exchange.rejected:
            return []
        case .waiting, .receiving, .handling, .responding:
            break
        }
        decoder.append(bytes)
        defer { stateChanged() }
        return advance(bodyLimit: bodyLimit)
    }

    /// Starts the response to the request being handled.
    /// - Parameters:
    ///   - head: status and fields; `Content-Length`, `Transfer-Encoding` and `Connection` are set by the machine.
    ///   - bodyLength: the body's length when known (sent as `Content-Length`); nil for a streamed body, sent
    ///     chunked (or, to an HTTP/1.0 client, until the connection closes).
    ///   - extraCapacity: room to leave in the returned array for body bytes the caller appends (see
    ///     ``writesBody(count:)``).
    ///   - encodedFields: fields encoded beforehand, sent before the head's own (see ``HTTPEncodedFields``); then
    ///     `moreEncodedFields`.
    /// - Returns: the bytes of the head.
    public mutating func startResponse(_ head: consuming HTTPResponseHead,
                                       encodedFields: HTTPEncodedFields = .none,
                                       _ moreEncodedFields: HTTPEncodedFields = .none, bodyLength: Int?,
                                       extraCapacity: Int = 0) -> [UInt8] {
        guard case .handling(let exchange) = state else {
            preconditionFailure("HTTPServerMachine.startResponse without a request to answer")
        }
        head.version = .http1_1
        let closeRequested = head.headers.removeFraming()
        // The framing fields are written after the head's own, straight into its bytes (not added to its fields: an
        // answer without fields of its own then allocates only its bytes).
        var framing = HTTPResponseHead.Framing()
        var outgoing: Outgoing
        if head.status.forbidsBody {
            outgoing = .discarded
        } else if let bodyLength {
            framing.contentLength = bodyLength
            outgoing = exchange.method == .head ? .discarded : .length(remaining: bodyLength)
        } else if exchange.method == .head {
            outgoing = .discarded
        } else if exchange.version.minor >= 1 {
            framing.chunked = true
            outgoing = .chunked
        } else {
            outgoing = .untilClose
        }
        var keepAlive = exchange.keepAlive && !exchange.rejected && !closeRequested
        if case .untilClose = outgoing { keepAlive = false }
        if !keepAlive {
            framing.connection = .close
        } else if exchange.version.minor == 0 {
            framing.connection = .keepAlive
        }
        state = .responding(Response(exchange: exchange, outgoing: outgoing, keepAlive: keepAlive))
        stateChanged()
        return head.encoded(after: encodedFields, moreEncodedFields, framing: framing, extraCapacity: extraCapacity)
    }

    /// Accounts for `count` body bytes of a response of known length that the caller writes itself, straight after
    /// the head (a small file read into the head's buffer).
    /// - Returns: true when the bytes go on the wire; false when the response has no body there (HEAD, 304).
    public mutating func writesBody(count: Int) -> Bool {
        guard case .responding(var response) = state else {
            preconditionFailure("HTTPServerMachine.writesBody without a response")
        }
        switch response.outgoing {
        case .length(let remaining):
            precondition(count <= remaining, "more body bytes than the declared length")
            response.outgoing = .length(remaining: remaining - count)
            state = .responding(response)
            return true
        case .discarded:
            return false
        case .chunked, .untilClose:
            preconditionFailure("HTTPServerMachine.writesBody on a response of unknown length")
        }
    }

    /// Frames a piece of the response body (bytes that fit the declared length pass through without a copy).
    /// - Returns: the bytes to send (empty for a HEAD request or a body-less status; bytes past a declared
    ///   length are dropped).
    public mutating func responseBody(_ bytes: [UInt8]) -> [UInt8] {
        if case .responding(var response) = state, case .length(let remaining) = response.outgoing,
           bytes.count <= remaining {
            response.outgoing = .length(remaining: remaining - bytes.count)
            state = .responding(response)
            return bytes
        }
        return responseBody(bytes[...])
    }

    /// Frames a piece of the response body.
    /// - Returns: the bytes to send (empty for a HEAD request or a body-less status; bytes past a declared
    ///   length are dropped).
    public mutating func responseBody<C: Collection>(_ bytes: C) -> [UInt8] where C.Element == UInt8 {
        guard case .responding(var response) = state else {
            preconditionFailure("HTTPServerMachine.responseBody without a response")
        }
        switch response.outgoing {
        case .length(let remaining):
            let count = min(remaining, bytes.count)
            response.outgoing = .length(remaining: remaining - count)
            state = .responding(response)
            return Array(bytes.prefix(count))
        case .chunked:
            return ChunkedEncoder.chunk(bytes)
        case .untilClose:
            return Array(bytes)
        case .discarded:
            return []
        }
    }

    /// Ends the response; the next pipelined request may follow.
    public mutating func endResponse(bodyLimit: (HTTPRequestHead) -> Int) -> [Action] {
        guard case .responding(let response) = state else {
            preconditionFailure("HTTPServerMachine.endResponse without a response")
        }
        defer { stateChanged() }
        var actions: [Action] = []
        var keepAlive = response.keepAlive
        switch response.outgoing {
        case .chunked:
            actions.append(.write(ChunkedEncoder.end))
        case .length(let remaining) where remaining > 0:
            // Fewer bytes than announced: the peer cannot tell where the next response starts.
            keepAlive = false
        case .length, .untilClose, .discarded:
            break
        }
        guard keepAlive else {
            state = .done
            actions.append(.close(linger: response.exchange.rejected))
            return actions
        }
        state = .waiting
        return actions + advance(bodyLimit: bodyLimit)
    }

    /// Answers the request being handled with 101 Switching Protocols; HTTP ends on this connection.
    /// - Returns: the head's bytes, and the bytes already received after the request, which belong to the new
    ///   protocol.
    public mutating func switchProtocols(_ head: HTTPResponseHead) -> (head: [UInt8], leftover: [UInt8]) {
        guard case .handling = state else {
            preconditionFailure("HTTPServerMachine.switchProtocols without a request to answer")
        }
        var head = head
        head.version = .http1_1
        state = .done
        stateChanged()
        return (head.encoded(), decoder.takeBufferedBytes())
    }

    private mutating func advance(bodyLimit: (HTTPRequestHead) -> Int) -> [Action] {
        var actions: [Action] = []
        do throws(HTTPError) {
            while true {
                switch state {
                case .waiting:
                    guard let part = try decoder.next() else { return actions }
                    guard case .head(let head, let framing) = consume part else {
                        preconditionFailure("the request decoder gave a body before a head")
                    }
                    // The limit first: the head then moves into the state (an argument after it would need a copy).
                    let limit = bodyLimit(head)
                    actions += try begin(head, framing: framing, limit: limit)
                case .receiving:
                    guard let part = try decoder.next() else { return actions }
                    // Moved out of the state, not copied: appended to while the state still held it, the body
                    // would be copied whole for every piece.
                    guard case .receiving(var upload) = takeState() else { preconditionFailure("receiving") }
                    switch part {
                    case .body(let bytes):
                        guard upload.body.count + bytes.count <= upload.limit else {
                            throw HTTPError(.bodyTooLarge, "the request body is larger than \(upload.limit) bytes")
                        }
                        upload.body += bytes
                        state = .receiving(upload)
                    case .end:
                        state = .handling(Exchange(method: upload.head.method, version: upload.head.version,
                                                   keepAlive: upload.head.wantsKeepAlive, rejected: false))
                        actions.append(.request(upload.head, body: upload.body))
                        return actions
                    case .head:
                        preconditionFailure("the request decoder gave a head inside a body")
                    }
                case .handling, .responding, .done:
                    return actions
                }
            }
        } catch {
            state = .handling(Exchange(method: .get, version: .http1_1, keepAlive: false, rejected: true))
            actions.append(.reject(error))
            return actions
        }
    }

    /// The state, moved out; the machine is `.done` until the caller sets the next one.
    private mutating func takeState() -> State {
        var taken = State.done
        swap(&taken, &state)
        return taken
    }

    private mutating func begin(_ head: consuming HTTPRequestHead, framing: HTTPBodyFraming,
                                limit: Int) throws(HTTPError) -> [Action] {
        var expectsContinue = false
        if head.headers.contains("Expect") {
            let expectations = head.headers.listElements("Expect")
            // RFC 9110 §10.1.1: 100-continue is the only expectation defined.
            guard expectations.count == 1, HTTPHeaders.name(expectations[0], matches: "100-continue") else {
                throw HTTPError(.unsupportedExpectation, "unsupported Expect: \(expectations.joined(separator: ", "))")
            }
            expectsContinue = head.version.minor >= 1
        }
        if case .length(let length) = framing, length > limit {
            throw HTTPError(.bodyTooLarge, "the request body (\(length) bytes) is larger than \(limit) bytes")
        }
        state = .receiving(Upload(head: head, body: [], limit: limit))
        if expectsContinue && framing != .none {
            return [.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))]
        }
        return []
    }
}
