import ByteIO
import Identity
import LiveProtocol
import LiveShows
import Locking

/// Whether a request for a show's media may have it.
public enum MediaDecision: Sendable, Hashable {
    /// The token is this server's, for this show, unexpired and not revoked.
    case allowed
    /// Refused: 401 (no token, not this server's or this show's, expired) or 403 (revoked by a ban), with a reason
    /// that never holds the token.
    case refused(status: Int, reason: String)
}

/// Gives and checks the media tokens of sessions that joined a show (``MediaToken``), and remembers whom a ban
/// revoked. Safe from any thread: the shows' loop gives and revokes, the HTTP loop checks.
///
/// The key is derived from the server's secret and a number drawn when the server starts, so a restart forgets
/// every token (sessions reconnect and get new ones in their welcome): the revocations kept in memory need not
/// outlive the process.
final class MediaGate: Sendable {
    /// The most revocations kept: a ban revokes for one token lifetime, so only a flood of bans within one
    /// lifetime fills it; then the oldest is forgotten (its tokens expire within a lifetime) and said so.
    static let maximumRevocations = 65_536

    private struct Revocation: Hashable {
        var stream: String
        /// By bytes, as bans are (``UserID``).
        var user: UserID
    }

    private let key: [UInt8]
    /// How long a token works, in seconds.
    let lifetime: Int64
    private let revocations = Locked([Revocation: Int64]())
    private let onForgotten: @Sendable (_ ageSeconds: Int64) -> Void
    /// Told of each revocation (a ban), so that WHEP players of that user end as their tokens stop working.
    let onRevoked = Locked<(@Sendable (_ stream: String, _ user: String) -> Void)?>(nil)

    init(secret: TokenSecret, lifetime: Duration, onForgotten: @escaping @Sendable (Int64) -> Void) {
        var generator = SystemRandomNumberGenerator()
        let boot = Hex.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        key = secret.derivedKey(for: "stream media tokens \(boot)")
        self.lifetime = max(2, lifetime.components.seconds)
        self.onForgotten = onForgotten
    }

    /// A token for a session of `user` (nil: a visitor) in `stream`.
    /// - Parameter now: the time in milliseconds since 1970.
    func issue(stream: String, user: String?, now: Int64) -> MediaAccess {
        let seconds = now / 1000
        // Never at or before a revocation of the same user (an unban and a new join within the ban's second).
        let revokedAt = user.flatMap { user in
            revocations.withLock { $0[Revocation(stream: stream, user: UserID(user))] }
        }
        let issuedAt = max(seconds, (revokedAt ?? -1) + 1)
        let token = MediaToken(stream: stream, user: user, issuedAt: issuedAt, expiresAt: seconds + lifetime)
        return MediaAccess(token: token.signed(with: key), expiresAt: (seconds + lifetime) * 1000)
    }

    /// Whether a request for `stream`'s media carrying `token` (nil: none) may have it.
    func check(stream: String, token: String?, now: Int64) -> MediaDecision {
        guard let token else {
            return .refused(status: 401, reason: "\(stream.prefix(128))'s media needs the media token of a session "
                                + "that joined: /hls/{stream}/{token}/main.m3u8 (docs/hls.md)")
        }
        let granted: MediaToken
        do {
            granted = try MediaToken.verify(token, stream: stream, key: key, now: now / 1000)
        } catch {
            return .refused(status: 401, reason: error.reason)
        }
        if let user = granted.user,
           let revokedAt = revocations.withLock({ $0[Revocation(stream: stream, user: UserID(user))] }),
           granted.issuedAt <= revokedAt {
            return .refused(status: 403, reason: "this media token was revoked: its user is banned from "
                                + "\(stream.prefix(128))")
        }
        return .allowed
    }

    /// The user a token that ``check(stream:token:now:)`` allowed was given to (nil: a visitor).
    func holder(stream: String, token: String, now: Int64) -> String? {
        (try? MediaToken.verify(token, stream: stream, key: key, now: now / 1000))?.user
    }

    /// `user` was banned from `stream`: the tokens given to them until now stop working.
    func revoke(stream: String, user: String, now: Int64) {
        let seconds = now / 1000
        let forgotten: Int64? = revocations.withLock { table in
            table[Revocation(stream: stream, user: UserID(user))] = seconds
            guard table.count > Self.maximumRevocations else { return nil }
            // Revocations older than a lifetime revoke nothing more: every token they covered has expired.
            table = table.filter { seconds - $0.value <= lifetime }
            guard table.count > Self.maximumRevocations, let oldest = table.min(by: { $0.value < $1.value })
            else { return nil }
            table[oldest.key] = nil
            return seconds - oldest.value
        }
        if let forgotten { onForgotten(forgotten) }
        onRevoked.withLock { $0 }?(stream, user)
    }
}
