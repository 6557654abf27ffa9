import HTTP
import HTTPClient
import WHIP

/// WHIP's requests over the project's ``HTTPClient/HTTPClient``: https certificates are verified as for RTMPS (the
/// system CA store plus an optional CA file, the name checked against the host).
public struct HTTPClientWHIPTransport: WHIPTransport {
    private let client: HTTPClient

    /// Creates a transport.
    /// - Parameter client: the HTTP client (its options carry the extra CA file and the timeouts).
    public init(client: HTTPClient) {
        self.client = client
    }

    /// Sends one request; the error names the endpoint and what failed, never the request's headers.
    /// - Throws: ``HTTPClient/HTTPClientError`` when the endpoint cannot be reached or breaks HTTP.
    public func send(_ request: WHIPRequest) async throws -> WHIPResponse {
        var headers = HTTPHeaders()
        for field in request.headers { headers.add(field.name, field.value) }
        let response = try await client.send(HTTPClientRequest(
            method: HTTPMethod(rawValue: request.method), url: request.url.absoluteString, headers: headers,
            body: request.body))
        return WHIPResponse(status: response.status.code,
                            headers: response.headers.fields.map { (name: $0.name, value: $0.value) },
                            body: response.body)
    }
}
