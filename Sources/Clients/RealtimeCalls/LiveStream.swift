import StreamCore
#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import LiveProtocol
import Locking

/// One live stream as an app sees it (the seed's `show`): the state, the count, the chat, the pictures, the
/// callbacks, and the calls of each role.
///
/// The object keeps one WebSocket to the server. When it is lost, ``media`` becomes `reconnecting`, the client
/// reconnects with backoff and joins again with the chat position it holds (`since`): the server sends what was
/// missed, so no message appears twice and none the server kept is lost. Callbacks run one at a time, in the
/// order of the events, on the client's own task (hop to the main actor in an app). Call ``leave()`` when done:
/// until then the connection (and this object) stay alive.
public final class LiveStream: Sendable {
    private struct Handlers {
        var change: [@Sendable () -> Void] = []
        var message: [@Sendable (ChatMessage) -> Void] = []
        var reactions: [@Sendable ([Reaction: Int]) -> Void] = []
        var ended: [@Sendable (EndReason) -> Void] = []
        var error: [@Sendable (LiveStreamError) -> Void] = []
        var subscribers: [Int: AsyncStream<LiveStreamEvent>.Continuation] = [:]
        var nextSubscriber = 0
    }

    private struct Inner {
        var model: LiveStreamModel
        var socket: (any ShowSocket)?
        var nextID: Int64 = 1
        var pending: [Int64: ReplySlot] = [:]
        var tokens = TokenCache()
        /// A visitor's token from the last welcome, sent back at each rejoin so the server knows it is the same
        /// visitor (slow mode, timeouts and bans follow it).
        var visitorToken: String?
        var leaving = false
        var over = false
        /// Whether the media's path is observed (registered at the first goLive).
        var observingPath = false
        var overWaiters: [Int: CheckedContinuation<EndReason?, Never>] = [:]
        var nextWaiter = 0
        var handlers = Handlers()
    }

    /// The stream name, e.g. `show:mugs`.
    public let name: String
    /// The server's HTTP(S) base URL it was opened on (where the LL-HLS pictures are too).
    public let server: String
    private let url: String
    private let options: Realtime.Options
    private let tokenProvider: Realtime.TokenProvider
    private let liveMedia: (any LiveMedia)?
    private let inner: Locked<Inner>
    private let outbox: AsyncStream<Request>.Continuation
    private let outboxRequests: AsyncStream<Request>
    private let driver = Locked<Task<Void, Never>?>(nil)

    private init(name: String, server: String, url: String, options: Realtime.Options,
                 tokens: @escaping Realtime.TokenProvider, media: (any LiveMedia)?) {
        self.name = name
        self.server = server
        self.url = url
        self.options = options
        tokenProvider = tokens
        liveMedia = media
        inner = Locked(Inner(model: LiveStreamModel(name: name)))
        // Fire-and-forget calls (react, leave): a few at a time at most; past 64 waiting the oldest are dropped.
        (outboxRequests, outbox) = AsyncStream<Request>.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    static func open(name: String, server: String, url: String, options: Realtime.Options,
                     tokens: @escaping Realtime.TokenProvider,
                     media: (any LiveMedia)?) async throws(LiveStreamError) -> LiveStream {
        let stream = LiveStream(name: name, server: server, url: url, options: options, tokens: tokens, media: media)
        let socket = try await stream.connectAndJoin()
        stream.startDriver(socket)
        return stream
    }

    // MARK: The show

    /// idle, live or ended.
    public var state: ShowState { inner.withLock { $0.model.state } }
    /// Where the app is in the room: off, connecting, live, reconnecting. The server connection, and while it is
    /// live, the path of what this app publishes (``goLive()``), as its media reports it.
    public var media: MediaState { inner.withLock { $0.model.media } }
    /// Distinct people watching (hosts are not counted).
    public var viewers: Int { inner.withLock { $0.model.viewers } }
    /// The show's title and description, as its declaration gives them (nil: none).
    public var title: String? { inner.withLock { $0.model.title } }
    /// The show's description (nil: none).
    public var description: String? { inner.withLock { $0.model.description } }
    /// The chat, oldest first (at most ``LiveStreamModel/maximumMessages``).
    public var messages: [ChatMessage] { inner.withLock { $0.model.messages } }
    /// The pinned message.
    public var pinned: ChatMessage? { inner.withLock { $0.model.pinned } }
    /// Whether this session may write now (false for read-only roles and while timed out).
    public var canWrite: Bool { inner.withLock { $0.model.canWrite } }
    /// Slow mode in seconds (0: off).
    public var slow: Int { inner.withLock { $0.model.slow } }
    /// The published pictures.
    public var tiles: [TileKind] { inner.withLock { $0.model.tiles } }
    /// The main picture (the one `LiveStreamVideoView` shows by default); nil when nothing is published.
    public var main: TileKind? { inner.withLock { $0.model.main } }
    /// The reactions the stream accepts (empty when it declared none).
    public var reactions: [Reaction] { inner.withLock { $0.model.reactionKinds } }
    /// Reactions counted by kind since this session joined.
    public var reactionTotals: [Reaction: Int] { inner.withLock { $0.model.reactionTotals } }
    /// This session's user id (nil for a visitor), display name, role and standing.
    public var you: SessionStanding? { inner.withLock { $0.model.you } }
    /// Everything above at once, consistent.
    public var model: LiveStreamModel { inner.withLock { $0.model } }

    // MARK: Callbacks and events

    /// Calls `handler` when anything above changes.
    public func onChange(_ handler: @escaping @Sendable () -> Void) {
        inner.withLock { $0.handlers.change.append(handler) }
    }

    /// Calls `handler` for each new chat message (the history is in ``messages`` when `stream(_:)` returns).
    public func onMessage(_ handler: @escaping @Sendable (ChatMessage) -> Void) {
        inner.withLock { $0.handlers.message.append(handler) }
    }

    /// Calls `handler` with reactions as they arrive (at most every 250 ms), counted by kind.
    public func onReactions(_ handler: @escaping @Sendable ([Reaction: Int]) -> Void) {
        inner.withLock { $0.handlers.reactions.append(handler) }
    }

    /// Calls `handler` once when the app is out of the stream: left, kicked or banned.
    public func onEnded(_ handler: @escaping @Sendable (EndReason) -> Void) {
        inner.withLock { $0.handlers.ended.append(handler) }
    }

    /// Calls `handler` when a call made without waiting (``react(_:)``) is refused, or when reconnecting is refused
    /// (a token the app can no longer renew, a ban): the session is then over.
    public func onError(_ handler: @escaping @Sendable (LiveStreamError) -> Void) {
        inner.withLock { $0.handlers.error.append(handler) }
    }

    /// The show's events as an async sequence, from now on; it finishes when the session is over. Up to 1000
    /// events wait for a slow reader; past that the oldest are dropped (``LiveStreamEvent/changed`` says to read
    /// the show again anyway).
    public var events: AsyncStream<LiveStreamEvent> {
        let (stream, continuation) = AsyncStream<LiveStreamEvent>.makeStream(bufferingPolicy: .bufferingNewest(1000))
        let isOver = inner.withLock { inner -> Bool in
            guard !inner.over else { return true }
            let id = inner.handlers.nextSubscriber
            inner.handlers.nextSubscriber += 1
            inner.handlers.subscribers[id] = continuation
            continuation.onTermination = { [weak self] _ in
                self?.inner.withLock { _ = $0.handlers.subscribers.removeValue(forKey: id) }
            }
            return false
        }
        if isOver { continuation.finish() }
        return stream
    }

    /// Waits until the session is over.
    /// - Returns: why (left, kicked, banned), or nil when reconnecting was refused (``onError(_:)`` said why) or
    ///   the waiting task was cancelled.
    public func ended() async -> EndReason? {
        let id = inner.withLock { inner -> Int in
            defer { inner.nextWaiter += 1 }
            return inner.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = inner.withLock { inner -> EndReason?? in
                    if inner.over { return .some(inner.model.ended) }
                    if Task.isCancelled { return .some(nil) }
                    inner.overWaiters[id] = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            inner.withLock { $0.overWaiters.removeValue(forKey: id) }?.resume(returning: nil)
        }
    }

    // MARK: Everyone

    /// Writes a chat message.
    /// - Returns: the message as committed (it also arrives in ``messages`` and ``onMessage(_:)``).
    /// - Throws: `readOnly`, `slow`, `timeout`, `invalid` (empty, over 500 characters), `rateLimited`,
    ///   `disconnected`.
    @discardableResult
    public func send(_ text: String) async throws(LiveStreamError) -> ChatMessage {
        guard case .message(let message) = try await request(.send(text: text)) else {
            throw .invalid("the server answered send without the message")
        }
        return message
    }

    /// Reacts without waiting; a refusal goes to ``onError(_:)``.
    public func react(_ reaction: Reaction) {
        outbox.yield(.react(reaction))
    }

    /// Reacts and waits for the server's answer.
    /// - Throws: `readOnly`, `invalid` (the stream has no reactions), `rateLimited`, `disconnected`.
    public func sendReaction(_ reaction: Reaction) async throws(LiveStreamError) {
        _ = try await request(.react(reaction))
    }

    /// Leaves the stream without waiting: ``onEnded(_:)`` gets `left`. Publishing (if any) stops.
    public func leave() {
        let connected = inner.withLock { inner -> Bool in
            inner.leaving = true
            return inner.socket != nil && !inner.over
        }
        if connected {
            outbox.yield(.leave)
        } else {
            driver.withLock { $0 }?.cancel()
        }
    }

    // MARK: The host

    /// Starts the camera and microphone locally, without publishing.
    public func preview() async throws(LiveStreamError) {
        try await requireMedia().preview()
    }

    /// Turns the camera on or off.
    public func setCamera(_ on: Bool) async throws(LiveStreamError) {
        try await requireMedia().setCamera(on)
    }

    /// Turns the microphone on or off.
    public func setMicrophone(_ on: Bool) async throws(LiveStreamError) {
        try await requireMedia().setMicrophone(on)
    }

    /// Goes live: with nothing on, turns the camera and microphone on first; asks the server for publish grants
    /// for the media's pictures and publishes them where the grants say.
    /// - Throws: `notHost`, `unavailable` (the server has no RTMP ingest), `media`, `disconnected`.
    public func goLive() async throws(LiveStreamError) {
        let media = try requireMedia()
        let observe = inner.withLock { inner -> Bool in
            defer { inner.observingPath = true }
            return !inner.observingPath
        }
        if observe {
            // ``media`` then says connecting and reconnecting for this app's own picture too (the seed's room).
            media.observePath { [weak self] state in self?.publishingChanged(state) }
        }
        if !media.isCameraOn && !media.isMicrophoneOn {
            try await media.setCamera(true)
            try await media.setMicrophone(true)
        }
        guard case .grants(let grants) = try await request(.goLive(tiles: media.tiles)) else {
            throw .invalid("the server answered goLive without grants")
        }
        try await media.publish(grants)
    }

    /// Ends the show: every picture is cut (OBS's too), the state becomes ended; local publishing stops.
    /// - Throws: `notHost`, `disconnected`.
    public func end() async throws(LiveStreamError) {
        _ = try await request(.end)
        await liveMedia?.stop()
    }

    /// The OBS URL and stream key (a secret: never log it). `renew: true` makes a new key and cuts off the old one.
    /// - Throws: `notHost`, `unavailable`, `disconnected`.
    public func ingest(renew: Bool = false) async throws(LiveStreamError) -> (url: String, key: String) {
        guard case .ingest(let endpoint) = try await request(.ingest(renew: renew)) else {
            throw .invalid("the server answered ingest without a URL and key")
        }
        return (endpoint.url, endpoint.key)
    }

    /// Chooses the main picture (nil: the default order, screen, then OBS, then camera).
    public func setMain(_ tile: TileKind?) async throws(LiveStreamError) {
        _ = try await request(.setMain(tile))
    }

    // MARK: The host and mods

    /// Deletes a message.
    public func deleteMessage(_ id: Int64) async throws(LiveStreamError) {
        _ = try await request(.deleteMessage(id: id))
    }

    /// Pins a message.
    public func pin(_ id: Int64) async throws(LiveStreamError) {
        _ = try await request(.pin(id: id))
    }

    /// Removes the pinned message.
    public func unpin() async throws(LiveStreamError) {
        _ = try await request(.unpin)
    }

    /// Stops a user writing for 60 to 86,400 seconds; they go on watching.
    /// - Returns: when it ends, in milliseconds since 1970.
    @discardableResult
    public func timeout(_ user: String, seconds: Int) async throws(LiveStreamError) -> Int64 {
        guard case .timedOut(let until) = try await request(.timeout(user: user, seconds: seconds)) else {
            throw .invalid("the server answered timeout without its end")
        }
        return until
    }

    /// Slow mode: one message every `seconds` per viewer (0 turns it off, at most 3600).
    public func setSlow(_ seconds: Int) async throws(LiveStreamError) {
        _ = try await request(.setSlow(seconds: seconds))
    }

    /// Deletes every message.
    public func clearChat() async throws(LiveStreamError) {
        _ = try await request(.clearChat)
    }

    /// Puts a user out now; they may come back.
    public func kick(_ user: String) async throws(LiveStreamError) {
        _ = try await request(.kick(user: user))
    }

    /// Puts a user out and refuses them until ``unban(_:)``.
    public func ban(_ user: String) async throws(LiveStreamError) {
        _ = try await request(.ban(user: user))
    }

    /// Lifts a ban.
    public func unban(_ user: String) async throws(LiveStreamError) {
        _ = try await request(.unban(user: user))
    }

    // MARK: Requests

    private func requireMedia() throws(LiveStreamError) -> any LiveMedia {
        guard let liveMedia else {
            throw .media("this show was opened without media: pass media: to calls.stream(_:media:)")
        }
        return liveMedia
    }

    private enum Admission {
        case sent(any ShowSocket, Int64, ReplySlot)
        case refused(LiveStreamError)
    }

    private func request(_ request: Request) async throws(LiveStreamError) -> Reply {
        let admission = inner.withLock { inner -> Admission in
            if let ended = inner.model.ended { return .refused(.ended(ended)) }
            guard let socket = inner.socket else {
                return .refused(inner.over ? .disconnected("the session is over")
                                           : .disconnected("not connected to the server: reconnecting"))
            }
            let id = inner.nextID
            inner.nextID += 1
            let slot = ReplySlot()
            inner.pending[id] = slot
            return .sent(socket, id, slot)
        }
        switch admission {
        case .refused(let error):
            throw error
        case .sent(let socket, let id, let slot):
            do {
                try await socket.send(Self.text(ClientRequest(id: id, request)))
            } catch {
                inner.withLock { _ = $0.pending.removeValue(forKey: id) }
                throw .disconnected("the connection was lost before \(request.op) was sent")
            }
            // A server that keeps the connection (and answers pings) but not this request: the call fails, and the
            // connection is replaced, since it is not working.
            let timeout = options.requestTimeout
            let op = request.op
            let timer = Task { [inner] in
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled, let slot = inner.withLock({ $0.pending.removeValue(forKey: id) }) else {
                    return
                }
                slot.fulfil(.failure(.disconnected("the server did not answer \(op) within \(timeout) (it may or may "
                                                      + "not have been taken); reconnecting")))
                await socket.close()
            }
            defer { timer.cancel() }
            return try await slot.wait()
        }
    }

    private static func text(_ request: ClientRequest) -> String {
        String(decoding: LiveCodec.encode(request), as: UTF8.self)
    }

    // MARK: The connection

    private func token() async throws(LiveStreamError) -> String? {
        let now = Int64(Date().timeIntervalSince1970)
        if let held = inner.withLock({ $0.tokens.current(now: now) }) { return held }
        let fresh: String?
        do {
            fresh = try await tokenProvider()
        } catch {
            throw .unauthorized("the app's token provider failed: \(error)")
        }
        inner.withLock { $0.tokens.store(fresh) }
        return fresh
    }

    /// Connects, joins with the position held, applies the welcome and makes the socket current.
    private func connectAndJoin() async throws(LiveStreamError) -> any ShowSocket {
        let socket = try await options.connector.connect(to: url, token: try await token())
        let (id, since, visitor) = inner.withLock { inner -> (Int64, ChatPosition?, String?) in
            defer { inner.nextID += 1 }
            return (inner.nextID, inner.model.position, inner.visitorToken)
        }
        do {
            try await socket.send(Self.text(ClientRequest(id: id, .join(since: since, visitor: visitor))))
        } catch {
            throw .disconnected("the connection was lost before joining")
        }
        // A server that takes the connection but never answers the join is given up on (and retried).
        let timeout = options.joinTimeout
        let reply = await withTaskGroup(of: Result<Reply, ShowError>?.self) { group in
            group.addTask {
                try? await Task.sleep(for: timeout)
                if !Task.isCancelled { await socket.close() }
                return nil
            }
            group.addTask { await Self.joinReply(id: id, on: socket) }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        switch reply {
        case .success(.welcome(let welcome))?:
            let notices = inner.withLock { inner -> [LiveStreamModel.Notice] in
                inner.socket = socket
                if let visitor = welcome.visitor { inner.visitorToken = visitor.token }
                return inner.model.apply(welcome)
            }
            deliver(notices)
            return socket
        case .success?:
            await socket.close()
            throw .invalid("the server answered join without a welcome")
        case .failure(let error)?:
            await socket.close()
            if error.code == .unauthorized { inner.withLock { $0.tokens.invalidate() } }
            throw LiveStreamError(error)
        case nil:
            await socket.close()
            throw .disconnected("the server did not answer the join within \(timeout)")
        }
    }

    /// Reads until the reply to the join (nothing else comes before it); nil when the socket closes first.
    private static func joinReply(id: Int64, on socket: any ShowSocket) async -> Result<Reply, ShowError>? {
        while let text = await socket.receive() {
            if case .reply(let replyID, let result)? = try? LiveCodec.decodeServerMessage(Array(text.utf8)),
               replyID == id {
                return result
            }
        }
        return nil
    }

    private func startDriver(_ socket: any ShowSocket) {
        let task = Task { [self] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.sendOutbox() }
                await self.maintain(socket)
                outbox.finish()
            }
        }
        driver.withLock { $0 = task }
    }

    /// Reads the socket; when it closes, reconnects with backoff until the session is over.
    private func maintain(_ first: any ShowSocket) async {
        var socket = first
        while true {
            let current = socket
            await withTaskGroup(of: Void.self) { group in
                group.addTask { [options] in
                    await Self.keepAlive(current, every: options.keepAliveInterval, timeout: options.keepAliveTimeout)
                }
                while let text = await current.receive() { handle(text) }
                group.cancelAll()
            }
            let (isOver, pending) = inner.withLock { inner -> (Bool, [ReplySlot]) in
                inner.socket = nil
                defer { inner.pending = [:] }
                return (inner.model.ended != nil || inner.leaving, Array(inner.pending.values))
            }
            pending.forEach { $0.fulfil(.failure(.disconnected("the connection was lost before the reply"))) }
            if isOver { return await finish() }
            deliver(inner.withLock { $0.model.connectionLost() })
            guard let next = await reconnect() else { return }
            if inner.withLock({ $0.leaving }) {
                // Left while this connection was being made: nothing to say to the server but goodbye.
                await next.close()
                return await finish()
            }
            socket = next
        }
    }

    /// Pings every `interval`; a ping unanswered within `timeout` closes the socket, so the reader sees the end and
    /// the client reconnects. Ends when cancelled (the socket closed by itself).
    private static func keepAlive(_ socket: any ShowSocket, every interval: Duration, timeout: Duration) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            if await !socket.ping(timeout: timeout), !Task.isCancelled {
                await socket.close()
                return
            }
        }
    }

    /// Reconnects with backoff; nil when the session ended meanwhile (left, or refused).
    private func reconnect() async -> (any ShowSocket)? {
        var attempt = 0
        var renewedToken = false
        while true {
            attempt += 1
            try? await Task.sleep(for: options.backoff.delay(attempt: attempt, random: Double.random(in: 0..<1)))
            if Task.isCancelled || inner.withLock({ $0.leaving }) {
                await finish()
                return nil
            }
            do {
                return try await connectAndJoin()
            } catch {
                if case .unauthorized = error, !renewedToken {
                    renewedToken = true  // the token was invalidated: the provider is asked once more
                    continue
                }
                guard error.refusesSession else { continue }
                await finish(error: error)
                return nil
            }
        }
    }

    private func sendOutbox() async {
        for await request in outboxRequests {
            do {
                _ = try await self.request(request)
            } catch {
                if case .leave = request { driver.withLock { $0 }?.cancel() }
                report(error)
            }
        }
    }

    private func handle(_ text: String) {
        let message: ServerMessage
        do {
            message = try LiveCodec.decodeServerMessage(Array(text.utf8))
        } catch {
            return  // a message this client cannot read (a newer server): skipped, the next join resynchronises
        }
        switch message {
        case .reply(let id, let result):
            guard let id, let slot = inner.withLock({ $0.pending.removeValue(forKey: id) }) else { return }
            slot.fulfil(result.mapError(LiveStreamError.init))
        case .event(let event):
            deliver(inner.withLock { $0.model.apply(event) })
        }
    }

    /// The session is over: left (locally, when not connected), ended by the server, or refused on reconnect.
    private func finish(error: LiveStreamError? = nil) async {
        let (notices, ending, waiters, subscribers) = inner.withLock { inner in
            var notices = inner.model.stopped()
            if inner.model.ended == nil && inner.leaving {
                notices += inner.model.apply(.ended(.left))
            }
            inner.over = true
            defer {
                inner.overWaiters = [:]
                inner.handlers.subscribers = [:]
            }
            return (notices, inner.model.ended, Array(inner.overWaiters.values),
                    Array(inner.handlers.subscribers.values))
        }
        if let error { report(error) }
        deliver(notices)
        subscribers.forEach { $0.finish() }
        waiters.forEach { $0.resume(returning: ending) }
        outbox.finish()
        await liveMedia?.stop()
    }

    private func report(_ error: LiveStreamError) {
        let (handlers, subscribers) = inner.withLock { ($0.handlers.error, Array($0.handlers.subscribers.values)) }
        handlers.forEach { $0(error) }
        subscribers.forEach { $0.yield(.error(error)) }
    }

    private func publishingChanged(_ state: MediaState) {
        deliver(inner.withLock { $0.model.publishingChanged(state) })
    }

    private func deliver(_ notices: [LiveStreamModel.Notice]) {
        guard !notices.isEmpty else { return }
        let (handlers, subscribers) = inner.withLock { ($0.handlers, Array($0.handlers.subscribers.values)) }
        for notice in notices {
            switch notice {
            case .changed:
                handlers.change.forEach { $0() }
                subscribers.forEach { $0.yield(.changed) }
            case .message(let message):
                handlers.message.forEach { $0(message) }
                subscribers.forEach { $0.yield(.message(message)) }
            case .reactions(let counts):
                handlers.reactions.forEach { $0(counts) }
                subscribers.forEach { $0.yield(.reactions(counts)) }
            case .ended(let reason):
                handlers.ended.forEach { $0(reason) }
                subscribers.forEach { $0.yield(.ended(reason)) }
            }
        }
    }
}
