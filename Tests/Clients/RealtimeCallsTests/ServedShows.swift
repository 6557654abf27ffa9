import Foundation
import Identity
import RealtimeCalls
import TestSupport
import Testing

/// The client's tests use the shared live-show server; tokens are minted here with its secret.
typealias ServedShows = LiveShowServer

extension LiveShowServer {
    /// A token for `user`, valid for `seconds` (negative: already expired).
    static func token(_ user: String, name: String? = nil, seconds: Int64 = 3600) -> String {
        let secret = try! TokenSecret(fileContents: Array(secretText.utf8))  // the constant is a valid secret
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken(subject: user, name: name, expiresAt: now + seconds, issuedAt: now).signed(with: secret)
    }

    /// A client of this server signed in as `user` (nil: a visitor).
    func client(_ user: String?, options: Realtime.Options = Realtime.Options()) -> Realtime {
        Realtime(server: base, options: options) { user.map { Self.token($0) } }
    }

    /// Writes a script to the work directory and starts `python3` on it with the WebSocket base and secret file.
    func python(_ script: String, _ arguments: [String]) throws -> BackgroundProcess {
        let path = work.file("peer-\(UUID().uuidString.prefix(8)).py")
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        return try BackgroundProcess("python3", [path, base.replacingOccurrences(of: "http://", with: "ws://"),
                                                 secretFile] + arguments,
                                     errorLog: work.file("python.err"))
    }
}

/// Waits until `predicate` holds for the show (checked at once and after every event), or fails after `timeout`.
func waitFor(_ show: LiveStream, _ what: String, timeout: Duration = .seconds(15),
             _ predicate: @escaping @Sendable (LiveStream) -> Bool) async throws {
    let events = show.events
    if predicate(show) { return }
    let held = try await withThrowingTaskGroup(of: Bool.self) { group in
        group.addTask {
            for await _ in events where predicate(show) { return true }
            return predicate(show)
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return predicate(show)
        }
        defer { group.cancelAll() }
        return try await group.next() ?? false
    }
    if !held { throw WaitFailure(description: "timed out waiting for \(what) on \(show.name)") }
}

/// A wait that timed out.
struct WaitFailure: Error, CustomStringConvertible {
    var description: String
}
