import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

extension WHIPTestEndpoint {
    /// POSTs the offer with the bearer token and returns the answer (expecting 201 and the session's Location).
    func post(_ offer: String) async throws -> String {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/sdp", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.httpBody = Data(offer.utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 201)
        #expect(http.value(forHTTPHeaderField: "Location") == "/whip/session")
        return String(decoding: data, as: UTF8.self)
    }

    /// DELETEs the session: the endpoint writes its results and exits.
    func delete() async throws {
        var request = URLRequest(url: url.appendingPathComponent("session"))
        request.httpMethod = "DELETE"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        _ = try await URLSession.shared.data(for: request)
    }
}
