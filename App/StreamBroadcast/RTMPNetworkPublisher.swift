import AppLogic
import FLV
import Foundation
import Network
import RTMP
import StreamCore
import Synchronization

/// RTMP or RTMPS over Network.framework, driving the RTMP module's sans-I/O `PublisherSession`: bytes read are fed to
/// the session, its `.write` actions are sent, `.published` and `.failed` are reported. TLS comes from the URL's
/// scheme (`rtmps` → TLS, port 443 by default). The stream key goes to `publish`, never into the connect URL.
final class RTMPNetworkPublisher: Sendable {
    /// What the pipeline hears.
    enum Event: Sendable {
        /// The ingest accepted the publish: media may flow.
        case published
        /// The broadcast cannot go on.
        case failed(BroadcastFailure)
    }

    /// How long connecting, the handshake and the publish may take.
    static let connectTimeoutSeconds = 10.0
    /// The largest read.
    static let readSize = 64 * 1024

    private let connection: NWConnection
    private let queue = DispatchQueue(label: "com.joeblau.Stream.rtmp")
    private let state: Mutex<State>
    private let onEvent: @Sendable (Event) -> Void

    private struct State {
        var session: PublisherSession
        var budget: SendBudget
        var isLive = false
        var isOver = false
    }

    init(credentials: StreamCredentials, budget: SendBudget, onEvent: @escaping @Sendable (Event) -> Void) {
        let url = credentials.url
        let parameters: NWParameters = url.usesTLS ? .tls : .tcp
        let port = NWEndpoint.Port(rawValue: UInt16(clamping: url.port)) ?? (url.usesTLS ? 443 : 1935)
        connection = NWConnection(host: NWEndpoint.Host(url.host), port: port, using: parameters)
        let configuration = PublisherSession.Configuration(app: url.app, tcUrl: url.tcUrl,
                                                           streamKey: credentials.streamKey)
        state = Mutex(State(session: PublisherSession(configuration: configuration), budget: budget))
        self.onEvent = onEvent
    }

    func start() {
        connection.stateUpdateHandler = { [weak self] state in self?.connectionChanged(state) }
        connection.start(queue: queue)
        queue.asyncAfter(deadline: .now() + Self.connectTimeoutSeconds) { [weak self] in
            guard let self, !self.state.withLock({ $0.isLive || $0.isOver }) else { return }
            self.fail(.timedOut)
        }
    }

    /// Sends metadata (`@setDataFrame onMetaData`).
    func sendMetadata(_ metadata: FLVMetadata) {
        let actions = state.withLock { $0.session.sendMetadata(metadata.properties) }
        run(actions, budgeted: 0)
    }

    /// Sends one FLV tag body if the send budget admits it.
    /// - Returns: the budget's decision (a drop may ask for a keyframe).
    @discardableResult
    func send(_ tag: FLVTag, as item: SendBudget.Item) -> SendBudget.Decision {
        let kind: MediaMessage.Kind = tag.type == .audio ? .audio : .video
        let (decision, actions) = state.withLock { state -> (SendBudget.Decision, [PublisherSession.Action]) in
            let decision = state.budget.admit(item, bytes: tag.body.count)
            guard decision == .send else { return (decision, []) }
            return (decision, state.session.sendMedia(kind, timestamp: tag.timestamp, body: tag.body))
        }
        run(actions, budgeted: decision == .send ? tag.body.count : 0)
        return decision
    }

    /// Unpublishes and closes.
    func stop() {
        let actions = state.withLock { state -> [PublisherSession.Action] in
            state.isOver = true
            return state.session.stop()
        }
        run(actions, budgeted: 0)
        connection.send(content: nil, contentContext: .finalMessage, isComplete: true,
                        completion: .contentProcessed { [connection] _ in connection.cancel() })
    }

    // MARK: - Driver

    private func connectionChanged(_ newState: NWConnection.State) {
        switch newState {
        case .ready:
            var random = [UInt8](repeating: 0, count: 1528)
            for index in random.indices { random[index] = UInt8.random(in: 0...255) }
            let actions = state.withLock { $0.session.start(random: random) }
            run(actions, budgeted: 0)
            receive()
        case .waiting(let error):
            // A broadcast does not wait for the network to come back: it ends with a readable error now.
            fail(connection.currentPath?.status == .unsatisfied ? .noPath : Self.kind(of: error))
        case .failed(let error):
            fail(Self.kind(of: error))
        case .setup, .preparing, .cancelled:
            break
        @unknown default:
            break
        }
    }

    private func receive() {
        connection.receive(minimumIncompleteLength: 1,
                           maximumLength: Self.readSize) { [weak self] data, _, done, error in
            guard let self else { return }
            if let data, !data.isEmpty {
                let actions = self.state.withLock { $0.session.bytesReceived([UInt8](data)) }
                self.run(actions, budgeted: 0)
            }
            if let error {
                self.fail(Self.kind(of: error))
            } else if done {
                let actions = self.state.withLock { $0.session.connectionClosed() }
                self.run(actions, budgeted: 0)
                self.fail(.other)
            } else {
                self.receive()
            }
        }
    }

    private func run(_ actions: [PublisherSession.Action], budgeted: Int) {
        for action in actions {
            switch action {
            case .write(let bytes):
                connection.send(content: Data(bytes), completion: .contentProcessed { [weak self] _ in
                    guard budgeted > 0 else { return }
                    self?.state.withLock { $0.budget.sent(bytes: budgeted) }
                })
            case .published:
                state.withLock { $0.isLive = true }
                onEvent(.published)
            case .failed(let error):
                report(BroadcastFailure(rtmp: error.code, statusCode: error.statusCode))
            case .closed:
                connection.cancel()
            }
        }
    }

    private func fail(_ kind: NetworkFailureKind) {
        let wasLive = state.withLock { $0.isLive }
        report(kind.failure(wasLive: wasLive))
    }

    /// Reports the first failure only, then closes.
    private func report(_ failure: BroadcastFailure) {
        let first = state.withLock { state -> Bool in
            defer { state.isOver = true }
            return !state.isOver
        }
        guard first else { return }
        connection.cancel()
        onEvent(.failed(failure))
    }

    private static func kind(of error: NWError) -> NetworkFailureKind {
        switch error {
        case .posix(let code):
            switch code {
            case .ECONNREFUSED: return .refused
            case .ETIMEDOUT: return .timedOut
            case .ENETDOWN, .ENETUNREACH, .EHOSTUNREACH: return .unreachable
            default: return .other
            }
        case .dns: return .dns
        case .tls: return .tls
        @unknown default: return .other
        }
    }
}
