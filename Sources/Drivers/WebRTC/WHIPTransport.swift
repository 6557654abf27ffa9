import WHIP

/// Carries WHIP's HTTP requests (the project's HTTP client in the broadcaster; URLSession in tests).
public protocol WHIPTransport: Sendable {
    /// Sends one request and returns the whole response.
    /// - Throws: when the endpoint cannot be reached; the error must not contain the request's headers.
    func send(_ request: WHIPRequest) async throws -> WHIPResponse
}
