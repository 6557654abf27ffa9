/// The HTTP side of a WHIP publish (RFC 9725) as a state machine without I/O: POST the offer with the bearer token,
/// follow redirects, take `201 Created` with the answer and the session's `Location`, and DELETE it at the end.
///
/// Every refusal is a ``WHIPError`` that says what the endpoint answered and what to do; the token never appears
/// in an error, a description or a log line.
public struct WHIPExchange: Sendable {
    /// RFC 9725 §4.5: redirects may be followed; more than this is a loop.
    public static let maximumRedirects = 5
    /// Longest part of an error body quoted in a message.
    static let quotedBodyLength = 160

    /// What the driver does after a response.
    public enum Action: Sendable, Hashable {
        /// Send this request (a redirect).
        case send(WHIPRequest)
        /// The endpoint answered: hand the SDP to the WebRTC session; the session lives at `resource`.
        case answered(sdp: String, resource: WHIPURL)
    }

    private enum State: Sendable {
        case idle
        case offering(url: WHIPURL, offer: [UInt8], redirects: Int)
        case established(resource: WHIPURL)
        case ended
    }

    /// The endpoint URL as configured.
    public let endpoint: WHIPURL
    private let token: String?
    private var state: State = .idle

    /// Creates an exchange.
    /// - Parameters:
    ///   - endpoint: the WHIP endpoint URL.
    ///   - token: the bearer token, or nil for an endpoint without authentication.
    public init(endpoint: WHIPURL, token: String?) {
        self.endpoint = endpoint
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The session's URL once the offer was answered.
    public var resource: WHIPURL? {
        if case .established(let resource) = state { return resource }
        return nil
    }

    /// The POST that carries the offer.
    public mutating func offer(_ sdp: String) -> WHIPRequest {
        let body = Array(sdp.utf8)
        state = .offering(url: endpoint, offer: body, redirects: 0)
        return post(body, to: endpoint)
    }

    /// Reads the answer to the POST.
    /// - Throws: ``WHIPError`` for any status but 201 (and redirects), a 201 without `Location` or SDP.
    public mutating func receive(_ response: WHIPResponse) throws(WHIPError) -> Action {
        guard case .offering(let url, let offer, let redirects) = state else {
            throw WHIPError(.badResponse, "a WHIP response arrived with no offer outstanding")
        }
        switch response.status {
        case 201:
            guard let location = response.header("Location"), !location.isEmpty else {
                throw WHIPError(.badResponse, "the WHIP endpoint answered 201 without a Location header "
                    + "(RFC 9725 §4.2 requires it, to end the session)")
            }
            let type = response.header("Content-Type")?.lowercased() ?? ""
            guard type.hasPrefix("application/sdp") else {
                throw WHIPError(.badResponse, "the WHIP endpoint answered with \"\(type.prefix(60))\" instead of "
                    + "application/sdp")
            }
            let resource = try url.resolving(location)
            state = .established(resource: resource)
            return .answered(sdp: String(decoding: response.body, as: UTF8.self), resource: resource)
        case 301, 302, 303, 307, 308:
            guard redirects < Self.maximumRedirects else {
                throw WHIPError(.badResponse, "the WHIP endpoint redirected more than \(Self.maximumRedirects) "
                    + "times")
            }
            guard let location = response.header("Location") else {
                throw WHIPError(.badResponse, "the WHIP endpoint redirected (\(response.status)) without a Location")
            }
            let next = try url.resolving(location)
            state = .offering(url: next, offer: offer, redirects: redirects + 1)
            return .send(post(offer, to: next))
        default:
            throw failure(response, url: url)
        }
    }

    /// The DELETE that ends the session, or nil when none was established. Afterwards the exchange is over.
    public mutating func end() -> WHIPRequest? {
        defer { state = .ended }
        guard case .established(let resource) = state else { return nil }
        return WHIPRequest(method: "DELETE", url: resource, headers: authorization, body: [])
    }

    private func post(_ body: [UInt8], to url: WHIPURL) -> WHIPRequest {
        WHIPRequest(method: "POST", url: url,
                    headers: [("Content-Type", "application/sdp"), ("Accept", "application/sdp")] + authorization,
                    body: body)
    }

    private var authorization: [(name: String, value: String)] {
        token.map { [("Authorization", "Bearer " + $0)] } ?? []
    }

    private func failure(_ response: WHIPResponse, url: WHIPURL) -> WHIPError {
        let status = response.status
        let said = quoted(response.body)
        switch status {
        case 401, 403:
            return WHIPError(.unauthorized, "the WHIP endpoint refused the token (\(status)\(said)): check the "
                + "token given with --token-stdin or stored by `stream credentials set`")
        case 404:
            return WHIPError(.notFound, "no WHIP endpoint at \(url) (404\(said)): check the URL")
        case 429:
            let after = response.header("Retry-After").map { "; it asks to retry after \($0) s" } ?? ""
            return WHIPError(.serverError, "the WHIP endpoint is busy (429\(said))\(after)")
        case 500...599:
            return WHIPError(.serverError, "the WHIP endpoint failed (\(status)\(said)); a later attempt may work")
        default:
            return WHIPError(.refused, "the WHIP endpoint refused the offer (\(status)\(said))")
        }
    }

    /// `: "first line of the body"`, cut short, with the token masked should the endpoint echo it.
    private func quoted(_ body: [UInt8]) -> String {
        var text = String(decoding: body.prefix(4096), as: UTF8.self)
        if let token { text = text.replacing(token, with: "••••") }
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let trimmed = line.trimmingPrefix(while: \.isWhitespace)
        guard !trimmed.isEmpty else { return "" }
        return ": \"" + trimmed.prefix(Self.quotedBodyLength) + (trimmed.count > Self.quotedBodyLength ? "…" : "")
            + "\""
    }
}
