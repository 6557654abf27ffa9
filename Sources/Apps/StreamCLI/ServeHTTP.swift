#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import HTTP
import HTTPServer
import Locking
import Transport

/// `stream serve`'s HTTP side (docs/http.md): its options, its routes and its server. Later issues add their
/// routes to ``router(startedAt:)``.
enum ServeHTTP {
    static let listen = OptionSpec.value(
        "http-listen", valueName: "HOST:PORT",
        help: "HTTP address (default 127.0.0.1:8080; port 0 = any free port, printed at start).")
    static let tlsListen = OptionSpec.value(
        "https-listen", valueName: "HOST:PORT", help: "Also serve HTTPS here, with --tls-cert and --tls-key.")
    static let disabled = OptionSpec.flag("no-http", help: "Serve no HTTP or HTTPS.")

    /// The options `stream serve` adds for HTTP.
    static let options = [listen, tlsListen, disabled]

    /// The HTTP configuration the arguments ask for, or nil with `--no-http`.
    /// - Parameters:
    ///   - certificate: `--tls-cert`, for `--https-listen`.
    ///   - key: `--tls-key`, for `--https-listen`.
    /// - Throws: `CLIError.usage` for a bad address or `--https-listen` without the certificate pair.
    /// - Parameter counters: counts what the server reports for `/metrics`.
    static func configuration(_ arguments: ParsedArguments, certificate: String?, key: String?,
                              console: Console,
                              counters: ServeMetrics.Counters? = nil) throws -> HTTPServer.Configuration? {
        if arguments.flag(disabled.name) {
            for option in [listen, tlsListen] where arguments.value(option.name) != nil {
                throw CLIError.usage("--\(option.name) and --no-http contradict each other")
            }
            return nil
        }
        var configuration = HTTPServer.Configuration()
        configuration.listen = try ServeCommand.hostPort(arguments.value(listen.name) ?? "127.0.0.1:8080",
                                                         flag: "--\(listen.name)")
        if let address = arguments.value(tlsListen.name) {
            guard let certificate, let key else {
                throw CLIError.usage("--\(tlsListen.name) needs --tls-cert FILE and --tls-key FILE")
            }
            let (host, port) = try ServeCommand.hostPort(address, flag: "--\(tlsListen.name)")
            configuration.tlsListen = (host, port, TLSServerConfiguration(certificateFile: certificate,
                                                                          privateKeyFile: key))
        }
        configuration.onEvent = { event in
            counters?.http(event)
            console.print("http: \(event)")
        }
        return configuration
    }

    /// The routes of `stream serve`.
    /// - Parameter addRoutes: adds the routes of the other services (live shows).
    static func router(startedAt: ContinuousClock.Instant,
                       addRoutes: (inout HTTPRouter) -> Void = { _ in }) -> HTTPRouter {
        var router = HTTPRouter()
        addRoutes(&router)
        router.add(.get, "/v1/health", .immediate { _ in
            let uptime = Int((ContinuousClock.now - startedAt).components.seconds)
            return .json(#"{"status":"ok","version":"\#(StreamCLIMain.version)","uptimeSeconds":\#(uptime)}"#)
        })
        return router
    }

    /// Starts the HTTP server and prints where it listens.
    /// - Returns: the running server, or nil when HTTP is off.
    /// - Throws: `CLIError.failure` when an address is in use or the certificate cannot be loaded.
    /// - Parameter started: told the plain HTTP listener's address ("http://127.0.0.1:8080"), for addresses that
    ///   other parts print.
    static func start(_ configuration: HTTPServer.Configuration?, console: Console,
                      addRoutes: (inout HTTPRouter) -> Void = { _ in },
                      started: (String) -> Void = { _ in }) throws -> HTTPServer? {
        guard let configuration else { return nil }
        let server: HTTPServer
        let ports: HTTPServer.BoundPorts
        do {
            server = try HTTPServer(configuration: configuration, router: router(startedAt: .now, addRoutes: addRoutes))
            ports = try runBlocking { try await server.start() }
        } catch {
            throw CLIError.failure("cannot serve HTTP: \(error)")
        }
        if let port = ports.http, let (host, _) = configuration.listen {
            console.print("HTTP on http://\(urlHost(host)):\(port) (health: /v1/health)")
            let reachable = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
            started("http://\(urlHost(reachable)):\(port)")
        }
        if let port = ports.https, let (host, _, _) = configuration.tlsListen {
            console.print("HTTPS on https://\(urlHost(host)):\(port)")
        }
        return server
    }

    /// Stops the server (WebSockets get 1001).
    static func stop(_ server: HTTPServer?) {
        guard let server else { return }
        try? runBlocking { await server.stop() }
    }

    private static func urlHost(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }
}
