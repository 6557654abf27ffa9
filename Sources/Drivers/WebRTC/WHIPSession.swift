import Transport
import WHIP

/// One WHIP publish (RFC 9725): the offer POSTed with the bearer token, the answer taken, ICE and DTLS-SRTP up,
/// media sent, and the session DELETEd at the end. A failed session is not revived: the caller starts a new one
/// (with the same backoff as an RTMP reconnect).
public actor WHIPSession {
    /// The media side.
    public nonisolated let publisher: WebRTCPublisher
    /// The session's URL at the endpoint (from `Location`).
    public nonisolated let resource: WHIPURL
    private var exchange: WHIPExchange
    private let transport: any WHIPTransport

    private init(publisher: WebRTCPublisher, resource: WHIPURL, exchange: WHIPExchange,
                 transport: any WHIPTransport) {
        self.publisher = publisher
        self.resource = resource
        self.exchange = exchange
        self.transport = transport
    }

    /// Offers, takes the answer and connects.
    /// - Parameters:
    ///   - endpoint: the WHIP endpoint URL.
    ///   - token: the bearer token, or nil.
    ///   - configuration: what to offer.
    ///   - transport: the HTTP client.
    ///   - loop: the event loop for the UDP side.
    /// - Returns: a connected session: send media through ``publisher``.
    /// - Throws: ``WHIPPublishError``; a session the endpoint created is DELETEd before the error is thrown.
    public static func start(endpoint: WHIPURL, token: String?, configuration: WebRTCPublisher.Configuration,
                             transport: any WHIPTransport, loop: EventLoop) async throws(WHIPPublishError)
        -> WHIPSession {
        var exchange = WHIPExchange(endpoint: endpoint, token: token)
        let publisher: WebRTCPublisher
        let offer: String
        do {
            publisher = try await WebRTCPublisher.make(configuration: configuration, on: loop)
            offer = try await publisher.makeOffer()
        } catch {
            throw .session(error)
        }
        var request = exchange.offer(offer)
        var answer: (sdp: String, resource: WHIPURL)?
        while answer == nil {
            let response: WHIPResponse
            do {
                response = try await transport.send(request)
            } catch {
                await publisher.close()
                // The HTTP client's error already names the URL (query masked) and what failed.
                throw .unreachable("the WHIP endpoint did not answer the \(request.method): \(error)")
            }
            do {
                switch try exchange.receive(response) {
                case .send(let next): request = next
                case .answered(let sdp, let resource): answer = (sdp, resource)
                }
            } catch {
                await publisher.close()
                throw .endpoint(error)
            }
        }
        guard let answer else { throw .unreachable("no answer") }
        let session = WHIPSession(publisher: publisher, resource: answer.resource, exchange: exchange,
                                  transport: transport)
        do {
            try await publisher.accept(answer: answer.sdp)
            try await publisher.waitUntilConnected()
        } catch {
            await session.close()
            throw .session(error)
        }
        return session
    }

    /// Closes the media side and DELETEs the session (once; a failed DELETE is not retried: the endpoint also
    /// ends sessions whose consent lapses).
    public func close() async {
        await publisher.close()
        guard let request = exchange.end() else { return }
        _ = try? await transport.send(request)
    }
}
