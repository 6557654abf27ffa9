import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebRTC
import WHIP

/// WHIP's requests over URLSession (plain HTTP works on Linux, FIELD-NOTES), for the tests.
struct URLSessionWHIPTransport: WHIPTransport {
    func send(_ request: WHIPRequest) async throws -> WHIPResponse {
        var urlRequest = URLRequest(url: URL(string: request.url.absoluteString)!)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
        let (data, response) = try await URLSession.shared.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        let headers = http.allHeaderFields.compactMap { key, value -> (name: String, value: String)? in
            guard let name = key as? String, let value = value as? String else { return nil }
            return (name, value)
        }
        return WHIPResponse(status: http.statusCode, headers: headers, body: Array(data))
    }
}
