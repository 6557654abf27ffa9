import Foundation
import Network
import Publisher
import StreamCore

/// Network.framework's TCP or TLS (from the URL's scheme: `rtmps` → TLS, port 443 by default) as the RTMP client's
/// byte stream: what the phone supplies so that it runs the same RTMP client, outputs and reconnects as Linux.
struct NetworkConnector: ByteStreamConnector {
    func connect(to url: IngestURL, timeout: Duration) async throws(LinkError) -> any ByteStream {
        let stream = CallbackByteStream(url: url, transport: NetworkTransport(url: url))
        try await stream.open(timeout: timeout)
        return stream
    }
}

/// One `NWConnection`, each method one Network.framework call. Who waits for what, the timeouts and the first
/// failure are Publisher's `CallbackByteStream`, tested on Linux.
struct NetworkTransport: CallbackTransport {
    private let connection: NWConnection
    private let queue = DispatchQueue(label: "com.joeblau.Stream.rtmp")

    init(url: IngestURL) {
        let port = NWEndpoint.Port(rawValue: UInt16(clamping: url.port)) ?? (url.usesTLS ? 443 : 1935)
        connection = NWConnection(host: NWEndpoint.Host(url.host), port: port, using: url.usesTLS ? .tls : .tcp)
    }

    func start(reporting report: @escaping @Sendable (CallbackTransportEvent) -> Void) {
        // Weak: the connection keeps its handler until it is cancelled.
        connection.stateUpdateHandler = { [weak connection] state in
            switch state {
            case .ready:
                report(.ready)
            case .waiting(let error):
                let unsatisfied = connection?.currentPath?.status == .unsatisfied
                report(.failed(NetworkFailure(error, pathUnsatisfied: unsatisfied)))
            case .failed(let error):
                report(.failed(NetworkFailure(error)))
            case .cancelled:
                report(.cancelled)
            case .setup, .preparing:
                break
            @unknown default:
                break
            }
        }
        connection.start(queue: queue)
    }

    func send(_ bytes: [UInt8], completion: @escaping @Sendable (NetworkFailure?) -> Void) {
        connection.send(content: Data(bytes), completion: .contentProcessed { error in
            completion(error.map { NetworkFailure($0) })
        })
    }

    func receive(maximumLength: Int, completion: @escaping @Sendable ([UInt8], Bool, NetworkFailure?) -> Void) {
        connection.receive(minimumIncompleteLength: 1, maximumLength: maximumLength) { data, _, done, error in
            completion(data.map { [UInt8]($0) } ?? [], done, error.map { NetworkFailure($0) })
        }
    }

    func sendEnd(completion: @escaping @Sendable () -> Void) {
        connection.send(content: nil, contentContext: .finalMessage, isComplete: true,
                        completion: .contentProcessed { _ in completion() })
    }

    func cancel() {
        connection.cancel()
    }

    func schedule(afterSeconds seconds: Double, _ body: @escaping @Sendable () -> Void) {
        queue.asyncAfter(deadline: .now() + seconds) { body() }
    }
}

extension NetworkFailure {
    /// A Network.framework error's domain and code, for Publisher's tested `LinkError` table.
    init(_ error: NWError, pathUnsatisfied: Bool = false) {
        let domain: LinkError.NetworkDomain
        let code: Int32
        switch error {
        case .posix(let posix): (domain, code) = (.posix, posix.rawValue)
        case .dns(let dns): (domain, code) = (.dns, dns)
        case .tls(let status): (domain, code) = (.tls, status)
        @unknown default: (domain, code) = (.unknown, 0)
        }
        self.init(domain: domain, code: code, detail: "\(error)", pathUnsatisfied: pathUnsatisfied)
    }
}
