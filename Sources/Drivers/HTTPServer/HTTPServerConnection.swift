#if canImport(Glibc)
import Glibc
#endif
import HTTP
import Transport
import WebSocket

/// One accepted HTTP connection: its ``HTTPServerMachine``, driven on the loop thread. It routes each request,
/// runs the handler, sends the response (bytes, a file read as the client takes it, or a stream), upgrades to a
/// WebSocket, and owns the connection's timers (head, body, keep-alive, linger).
final class HTTPServerConnection: ConnectionHandler {
    private let connection: Connection
    // Strong: the core holds its connections only until they close, so the cycle ends there.
    private let core: ServerCore
    private let isSecure: Bool
    private var machine: HTTPServerMachine
    private var timer: Scheduled?
    /// When the phase's timeout runs out (nil in phases without one), and when the scheduled check fires.
    private var deadline: ContinuousClock.Instant?
    private var checkAt: ContinuousClock.Instant?
    private var timedPhase: HTTPServerMachine.Phase?
    /// ``answered`` when the deadline was last set: a request read and answered within one read goes from idle back
    /// to idle, and the deadline must move all the same (it stayed the first head's, 10 s from the accept).
    private var timedAnswered = 0
    /// Requests answered so far: the first request's head deadline runs from the accept, later ones' from their
    /// first byte.
    private var answered = 0
    /// Counts exchanges, so that a late answer for a request whose connection moved on is dropped.
    private var exchange: UInt64 = 0
    private var lifetime: OneShotEvent?
    /// The response a `.later` handler owes, cancelled if the connection closes first.
    private var pending: HTTPPendingResponse?
    private var writer: HTTPBodyWriter?
    private var file: FileSender?
    /// The route found for the last head (its body limit was asked for before its body was read), kept for the
    /// request that head starts: the machine hands out one request at a time, right after its head's limit.
    private var routed: (target: String, match: HTTPRouter.Match, parsed: HTTPRequestTarget?)?
    private var lingering = false
    private var bytesWhileLingering = 0
    /// Set when the connection closed or switched to WebSocket: no timer is scheduled after that (timers capture the
    /// handler unowned, and the core lets go of it then).
    private var detached = false

    init(connection: Connection, core: ServerCore, isSecure: Bool) {
        self.connection = connection
        self.core = core
        self.isSecure = isSecure
        machine = HTTPServerMachine(limits: core.configuration.limits)
    }

    var peer: String { connection.remoteAddress ?? connection.endpoint }

    // MARK: ConnectionHandler

    func connectionDidOpen(_ connection: Connection) {
        updateTimer()
    }

    func connectionDidRead(_ connection: Connection, bytes: [UInt8]) {
        core.traffic.httpReceived += bytes.count
        if lingering {
            bytesWhileLingering += bytes.count
            return
        }
        run(machine.received(bytes) { self.bodyLimit($0) })
    }

    func connectionDidDrain(_ connection: Connection) {
        writer?.drained()
        if let file {
            pump(file)
        }
    }

    func connectionDidClose(_ connection: Connection, error: TransportError?) {
        detached = true
        timer?.cancel()
        lifetime?.fire()
        pending?.cancel()
        pending = nil
        writer?.failed()
        file = nil
        if let error, error.code != .peerClosed, error.code != .closed, error.code != .timeout {
            core.emit(.connectionFailed(peer: peer, reason: error.description))
        }
        core.connectionClosed(self)
    }

    /// Server shutdown.
    func close() {
        connection.close()
    }

    // MARK: Machine

    /// The route's body limit for a head; the match is kept for the request that follows.
    private func bodyLimit(_ head: HTTPRequestHead) -> Int {
        let (target, match) = route(head)
        var limit = core.configuration.limits.maximumBodySize
        if case .route(let route, _) = match, route.bodyLimit >= 0 { limit = route.bodyLimit }
        routed = (head.target, consume match, consume target)
        return limit
    }

    /// The head's target, parsed (nil when an escape is malformed), and its route.
    private func route(_ head: HTTPRequestHead) -> (target: HTTPRequestTarget?, match: HTTPRouter.Match) {
        let target = head.parsedTarget
        // The segments alone are lent to the router (Optional.map would copy the whole target to pass it).
        var match = HTTPRouter.Match.notFound
        if let segments = target?.pathSegments { match = core.router.match(head.method, segments) }
        return (target, match)
    }

    private func run(_ actions: consuming [HTTPServerMachine.Action]) {
        // Taken out of the array one by one (reversed, then popped from the end), not copied out of it: a copied
        // request retains its head's every field and its body once more.
        var actions = actions
        actions.reverse()
        while let action = actions.popLast() {
            switch consume action {
            case .write(let bytes):
                send(bytes)
            case .request(let head, let body):
                dispatch(head, body: body)
            case .reject(let error):
                core.emit(.requestRejected(peer: peer, status: error.status.code, reason: error.description))
                respond(.status(error.status, message: error.description))
            case .close(let linger):
                if linger {
                    startLingering()
                } else {
                    connection.closeAfterFlush(timeout: core.configuration.lingerTimeout)
                }
            }
        }
        updateTimer()
        if machine.wantsMoreBytes || lingering {
            connection.resumeReading()
        } else {
            connection.pauseReading()
        }
    }

    private func send(_ bytes: [UInt8]) {
        core.traffic.httpSent += bytes.count
        do {
            try connection.write(bytes)
        } catch {
            connection.close()
        }
    }

    // MARK: Requests

    private func dispatch(_ head: consuming HTTPRequestHead, body: consuming [UInt8]) {
        exchange += 1
        var parsed: HTTPRequestTarget?
        var match = HTTPRouter.Match.notFound
        if var found = routed.take(), found.target == head.target {
            // Moved out of the route found for the head, not copied.
            swap(&parsed, &found.parsed)
            swap(&match, &found.match)
        } else {
            (parsed, match) = route(head)
        }
        guard let target = consume parsed else {
            respond(.status(.badRequest, message: "the request target has a malformed percent-escape"))
            return
        }
        switch consume match {
        case .notFound:
            respond(.status(.notFound))
        case .methodNotAllowed(let allowed):
            var response = HTTPResponse.status(.methodNotAllowed)
            response.headers.add("Allow", allowed.map(\.rawValue).joined(separator: ", "))
            respond(response)
        case .route(let route, let parameters):
            let request = HTTPRequest(head: head, target: target, parameters: parameters, body: body,
                                      remoteAddress: peer, isSecure: isSecure)
            switch route.handler {
            case .immediate(let handler):
                respond(handler(request))
            case .async(let handler):
                runAsync(request, handler)
            case .immediateOrLater(let handler):
                switch handler(request) {
                case .response(let response):
                    respond(response)
                case .later(let start):
                    start(pendingResponse())
                }
            case .webSocket(let webSocket):
                upgrade(request, webSocket)
            }
        }
    }

    private func runAsync(_ request: HTTPRequest,
                          _ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) {
        let lifetime = OneShotEvent()
        self.lifetime = lifetime
        let bound = LoopBound(self, loop: connection.loop)
        let exchange = self.exchange
        let core = LoopBound(core, loop: connection.loop)
        core.value.runner.run {
            let response = await lifetime.race { () async -> HTTPResponse in
                do {
                    return try await handler(request)
                } catch {
                    let reason = "\(error)"
                    core.loop.execute {
                        core.value.emit(.handlerFailed(method: request.method.rawValue, path: request.path,
                                                       reason: reason))
                    }
                    return .status(.internalServerError)
                }
            }
            guard let response else { return }
            bound.loop.execute { bound.value.finishAsync(response, exchange: exchange) }
        }
    }

    /// The pending response of a `.later` handler: given from any thread, it is sent on the loop.
    private func pendingResponse() -> HTTPPendingResponse {
        let pending = HTTPPendingResponse(connection: LoopBound(self, loop: connection.loop), exchange: exchange)
        self.pending = pending
        return pending
    }

    /// Sends the answer of a handler that ran elsewhere (async, or `.later`), if its exchange is still the current one.
    func finishAsync(_ response: consuming HTTPResponse, exchange: UInt64) {
        guard exchange == self.exchange, machine.phase == .handling, connection.isOpen else { return }
        lifetime = nil
        pending = nil
        respond(response)
    }

    // MARK: Responses

    private func respond(_ response: consuming HTTPResponse) {
        // The fields move into the head (the response lets go of them), so adding ours copies nothing; the body and
        // the encoded fields move out too (a copy retains them once more).
        var body = HTTPResponse.Body.bytes([])
        swap(&body, &response.body)
        var encoded = HTTPEncodedFields.none
        swap(&encoded, &response.encodedFields)
        var head = HTTPResponseHead(status: response.status)
        swap(&head.headers, &response.headers)
        // A response with its fields encoded beforehand (an LL-HLS answer) gets ours encoded too: nothing is built
        // or encoded per response but the status line and the framing.
        var ours = HTTPEncodedFields.none
        if head.headers.count == 0 && !encoded.hasDate && !encoded.hasServer {
            ours = core.dateAndServerFields()
        } else {
            if !encoded.hasDate && !head.headers.contains("Date") { head.headers.add("Date", core.date()) }
            if !encoded.hasServer && !head.headers.contains("Server") {
                head.headers.add("Server", core.configuration.serverName)
            }
        }
        answered += 1
        switch consume body {
        case .bytes(let bytes):
            let start = machine.startResponse(head, encodedFields: encoded, ours, bodyLength: bytes.count)
            // The body is queued as it is, after the head: an LL-HLS part shared by every reader of the stream is
            // never copied (plain sockets send both in one gathered write; TLS merges small chunks).
            send(start)
            send(machine.responseBody(bytes))
            run(machine.endResponse { self.bodyLimit($0) })
        case .stream(let producer):
            send(machine.startResponse(head, encodedFields: encoded, ours, bodyLength: nil))
            startStream(producer)
        case .file(let body):
            let small = body.range.count <= FileSender.chunkSize
            var start = machine.startResponse(head, encodedFields: encoded, ours, bodyLength: body.range.count,
                                              extraCapacity: small ? body.range.count : 0)
            // A small file goes out with its head in one write (one packet with TCP_NODELAY), read into the head's
            // buffer. A HEAD request's response has no body on the wire.
            if small {
                let written = machine.writesBody(count: body.range.count)
                if !written || body.file.read(body.range.count, at: body.range.lowerBound, appendingTo: &start) {
                    send(start)
                    run(machine.endResponse { self.bodyLimit($0) })
                } else {
                    // The file shrank since it was opened: what was promised cannot be sent.
                    connection.close()
                }
                return
            }
            send(start)
            let sender = FileSender(body)
            file = sender
            pump(sender)
        }
    }

    /// Reads the file into the connection while its queue is short; the rest follows on drain.
    private func pump(_ sender: FileSender) {
        var budget = FileSender.bytesPerTurn
        while connection.isOpen && connection.queuedBytes <= FileSender.queueTarget && budget > 0 {
            guard let chunk = sender.next() else {
                file = nil
                connection.close()
                return
            }
            if chunk.isEmpty {
                file = nil
                run(machine.endResponse { self.bodyLimit($0) })
                return
            }
            budget -= chunk.count
            send(machine.responseBody(chunk))
        }
        if budget <= 0 && connection.queuedBytes <= FileSender.queueTarget {
            // A fast client: let other connections have the loop, then continue.
            // Strong: the turn is short, and a weak reference would give every connection a side table.
            connection.loop.scheduleOnLoop(after: .zero) {
                guard let file = self.file, file === sender else { return }
                self.pump(sender)
            }
        }
    }

    private func startStream(_ producer: @escaping @Sendable (HTTPBodyWriter) async throws -> Void) {
        let bound = LoopBound(self, loop: connection.loop)
        let writer = HTTPBodyWriter(connection: bound, exchange: exchange)
        self.writer = writer
        let lifetime = OneShotEvent()
        self.lifetime = lifetime
        let exchange = self.exchange
        core.runner.run {
            let finished = await lifetime.race { () async -> Bool in
                do {
                    try await producer(writer)
                    return true
                } catch {
                    return false
                }
            }
            bound.loop.execute { bound.value.finishStream(exchange: exchange, completed: finished == true) }
        }
    }

    /// A write from a streamed body's producer. Returns true when the caller should wait for a drain.
    func streamWrite(_ bytes: [UInt8], exchange: UInt64) throws(HTTPServerError) -> Bool {
        guard exchange == self.exchange, writer != nil, connection.isOpen, machine.phase == .responding else {
            throw .connectionClosed
        }
        send(machine.responseBody(bytes))
        return connection.queuedBytes > HTTPBodyWriter.highWatermark
    }

    private func finishStream(exchange: UInt64, completed: Bool) {
        guard exchange == self.exchange, writer != nil else { return }
        writer = nil
        lifetime = nil
        guard completed, connection.isOpen else {
            connection.close()
            return
        }
        run(machine.endResponse { self.bodyLimit($0) })
    }

    // MARK: WebSocket

    private func upgrade(_ request: HTTPRequest, _ route: WebSocketRoute) {
        if let otherwise = route.otherwise, !request.headers.contains("Upgrade", token: "websocket") {
            runAsync(request, otherwise)
            return
        }
        let offer: WebSocketHandshake.Offer
        do {
            offer = try WebSocketHandshake.offer(in: request.head)
        } catch {
            var response = HTTPResponse.status(error.response.status, message: error.description)
            for field in error.response.headers { response.headers.add(field.name, field.value) }
            respond(response)
            return
        }
        let lifetime = OneShotEvent()
        self.lifetime = lifetime
        let bound = LoopBound(self, loop: connection.loop)
        let exchange = self.exchange
        core.runner.run {
            guard let decision = await lifetime.race({ await route.decide(request, offer) }) else { return }
            bound.loop.execute {
                bound.value.finishUpgrade(decision, request: request, offer: offer, options: route.options,
                                          exchange: exchange)
            }
        }
    }

    private func finishUpgrade(_ decision: WebSocketUpgrade, request: HTTPRequest, offer: WebSocketHandshake.Offer,
                               options: WebSocketOptions, exchange: UInt64) {
        guard exchange == self.exchange, machine.phase == .handling, connection.isOpen else { return }
        lifetime = nil
        switch decision {
        case .reject(let response):
            respond(response)
        case .accept(let handlers, let subprotocol):
            guard subprotocol.map(offer.protocols.contains) ?? true else {
                respond(.status(.internalServerError, message: "the server chose a subprotocol the client did not "
                                    + "offer"))
                return
            }
            var head = WebSocketHandshake.response(accepting: offer, subprotocol: subprotocol)
            head.headers.add("Date", core.date())
            head.headers.add("Server", core.configuration.serverName)
            let (bytes, leftover) = machine.switchProtocols(head)
            detached = true
            timer?.cancel()
            timer = nil
            deadline = nil
            send(bytes)
            core.connectionClosed(self)
            let webSocket = ServerWebSocket(connection: connection, core: core, request: request,
                                            subprotocol: subprotocol, options: options, handlers: handlers)
            webSocket.start(leftover: leftover)
        }
    }

    // MARK: Timers

    private func updateTimer() {
        // A lingering connection's timer is the linger check.
        guard !lingering else { return }
        let phase = machine.phase
        guard phase != timedPhase || answered != timedAnswered else { return }
        let previous = timedPhase
        timedPhase = phase
        timedAnswered = answered
        // The fields read one by one: a copy of the whole configuration retains each of its strings and closures.
        switch phase {
        case .idle:
            setDeadline(answered == 0 ? core.configuration.headTimeout : core.configuration.keepAliveTimeout)
        case .readingHead:
            // The first request's deadline counts from the accept; a later one's from its first byte.
            if previous == .idle && answered == 0 { return }
            setDeadline(core.configuration.headTimeout)
        case .readingBody:
            setDeadline(core.configuration.bodyTimeout)
        case .handling, .responding, .done:
            deadline = nil
        }
    }

    /// Moves the phase's deadline. One check stays scheduled per connection and re-arms itself when it finds the
    /// deadline moved, so a keep-alive connection answering thousands of requests a second schedules no timer per
    /// request (the loop's timer heap would fill with cancelled ones).
    private func setDeadline(_ delay: Duration) {
        let deadline = ContinuousClock.now + delay
        self.deadline = deadline
        if let checkAt, checkAt <= deadline { return }
        scheduleCheck(at: deadline)
    }

    private func scheduleCheck(at instant: ContinuousClock.Instant) {
        timer?.cancel()
        guard !detached else { return }
        checkAt = instant
        // Unowned, not weak: a weak reference gives the connection a side table, and every retain and release of it
        // then takes the runtime's slow path. The timer is cancelled when the connection closes or upgrades (before
        // the core lets go of it), and a cancelled timer never runs.
        timer = connection.loop.scheduleOnLoop(after: ContinuousClock.now.duration(to: instant)) { [unowned self] in
            checkDeadline()
        }
    }

    private func checkDeadline() {
        timer = nil
        checkAt = nil
        guard !lingering, let deadline else { return }
        if ContinuousClock.now >= deadline {
            timedOut()
        } else {
            scheduleCheck(at: deadline)
        }
    }

    private func timedOut() {
        // Slowloris, an idle keep-alive, or a stalled upload: close without an answer (as nginx does).
        connection.close()
    }

    /// RFC 9112 §9.6: after an error answer, read and discard what the client is still sending until it goes quiet
    /// (or for at most the linger timeout), so that it reads the answer instead of a connection reset.
    private func startLingering() {
        lingering = true
        bytesWhileLingering = 0
        timer?.cancel()
        checkAt = nil
        let deadline = ContinuousClock.now + core.configuration.lingerTimeout
        guard !detached else { return }
        timer = connection.loop.scheduleOnLoop(after: Self.lingerQuietPeriod) { [unowned self] in
            checkLingering(until: deadline)
        }
    }

    private func checkLingering(until deadline: ContinuousClock.Instant) {
        guard connection.isOpen else { return }
        if bytesWhileLingering == 0 || ContinuousClock.now >= deadline {
            connection.closeAfterFlush(timeout: core.configuration.lingerTimeout)
            return
        }
        bytesWhileLingering = 0
        guard !detached else { return }
        timer = connection.loop.scheduleOnLoop(after: Self.lingerQuietPeriod) { [unowned self] in
            checkLingering(until: deadline)
        }
    }

    /// A lingering connection closes once the client has sent nothing for this long.
    static let lingerQuietPeriod = Duration.milliseconds(200)
}
