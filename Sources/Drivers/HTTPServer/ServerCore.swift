#if canImport(Glibc)
import Glibc
#endif
import HTTP
import Transport

/// The loop-thread side of an ``HTTPServer``: listeners, open connections and WebSockets, the cached `Date`.
final class ServerCore {
    let configuration: HTTPServer.Configuration
    let router: HTTPRouter
    let runner: HandlerRunner
    private(set) var ports = HTTPServer.BoundPorts()
    private var listeners: [Listener] = []
    private var connections: [ObjectIdentifier: HTTPServerConnection] = [:]
    private var webSockets: [ObjectIdentifier: ServerWebSocket] = [:]
    private var sessionCounter: UInt64 = 0
    /// Gives back what closed WebSockets freed (a session may have held its whole outbound bound).
    private let memoryTrim = MemoryTrim()
    private var cachedDate: (second: Int, text: String) = (-1, "")

    init(configuration: HTTPServer.Configuration, router: HTTPRouter, runner: HandlerRunner) {
        self.configuration = configuration
        self.router = router
        self.runner = runner
    }

    /// Binds the configured listeners.
    func listen(on loop: EventLoop) throws(TransportError) {
        listenerLoop = loop
        do {
            if let (host, port) = configuration.listen {
                let listener = try listener(host, port, tls: nil, loop)
                listeners.append(listener)
                ports.http = listener.localPort
            }
            if let (host, port, tls) = configuration.tlsListen {
                let listener = try listener(host, port, tls: tls, loop)
                listeners.append(listener)
                ports.https = listener.localPort
            }
        } catch {
            listeners.forEach { $0.close() }
            listeners = []
            throw error
        }
    }

    private func listener(_ host: String, _ port: Int, tls: TLSServerConfiguration?,
                          _ loop: EventLoop) throws(TransportError) -> Listener {
        try Listener.listen(host: host, port: port, tls: tls, maxConnections: configuration.maxConnections,
                            handshakeTimeout: configuration.headTimeout, on: loop) { [unowned self] connection in
            let handler = HTTPServerConnection(connection: connection, core: self, isSecure: tls != nil)
            connection.handler = handler
            connections[ObjectIdentifier(handler)] = handler
        }
    }

    /// Connections (HTTP and WebSocket) open now.
    var openConnections: Int { connections.count + webSockets.count }

    /// Bytes read and queued by every connection, as plain integers: they are only changed here, on the loop.
    struct Traffic {
        var httpReceived = 0
        var httpSent = 0
        var webSocketReceived = 0
        var webSocketSent = 0
    }

    /// Bytes read and queued so far.
    var traffic = Traffic()

    /// Connections open now, by protocol, and the bytes so far.
    var statistics: HTTPServer.Statistics {
        var statistics = HTTPServer.Statistics(httpConnections: connections.count, webSockets: webSockets.count)
        statistics.httpBytesReceived = traffic.httpReceived
        statistics.httpBytesSent = traffic.httpSent
        statistics.webSocketBytesReceived = traffic.webSocketReceived
        statistics.webSocketBytesSent = traffic.webSocketSent
        return statistics
    }

    /// Stops listening, closes HTTP connections and starts closing WebSockets with 1001; `done` runs once every
    /// connection has closed, or after `grace`.
    func close(grace: Duration, done: @escaping () -> Void) {
        listeners.forEach { $0.close() }
        listeners = []
        for connection in Array(connections.values) { connection.close() }
        for webSocket in Array(webSockets.values) { webSocket.goAway() }
        guard openConnections > 0, let loop = listenerLoop else {
            done()
            return
        }
        closed = done
        loop.scheduleOnLoop(after: grace) { [weak self] in self?.finishClosing() }
    }

    private var closed: (() -> Void)?
    private var listenerLoop: EventLoop?

    private func finishClosing() {
        let done = closed
        closed = nil
        done?()
    }

    func connectionClosed(_ connection: HTTPServerConnection) {
        connections[ObjectIdentifier(connection)] = nil
        if openConnections == 0 { finishClosing() }
    }

    func webSocketOpened(_ webSocket: ServerWebSocket) {
        webSockets[ObjectIdentifier(webSocket)] = webSocket
    }

    func webSocketClosed(_ webSocket: ServerWebSocket) {
        webSockets[ObjectIdentifier(webSocket)] = nil
        if let listenerLoop { memoryTrim.connectionClosed(on: listenerLoop) }
        if openConnections == 0 { finishClosing() }
    }

    func nextSessionID() -> UInt64 {
        sessionCounter += 1
        return sessionCounter
    }

    func emit(_ event: HTTPServerEvent) {
        configuration.onEvent(event)
    }

    /// The `Date` field's value, formatted once per second.
    func date() -> String {
        let now = time(nil)
        if now != cachedDate.second {
            cachedDate = (now, HTTPDate.format(secondsSince1970: now))
        }
        return cachedDate.text
    }

    /// The `Date` and `Server` fields, encoded once per second (for responses that bring neither).
    func dateAndServerFields() -> HTTPEncodedFields {
        let now = time(nil)
        if now != cachedFields.second {
            cachedFields = (now, HTTPEncodedFields(["Date": date(), "Server": configuration.serverName]))
        }
        return cachedFields.fields
    }

    private var cachedFields: (second: Int, fields: HTTPEncodedFields) = (-1, .none)
}
