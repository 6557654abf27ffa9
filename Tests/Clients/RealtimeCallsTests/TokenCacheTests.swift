import Digest
import RealtimeCalls
import Testing

/// When the app is asked for a token again.
struct TokenCacheTests {
    static func token(exp: Int64) -> String {
        let head = Base64.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8), alphabet: .url)
        let body = Base64.encode(Array(#"{"sub":"ann","exp":\#(exp)}"#.utf8), alphabet: .url)
        return head + "." + body + ".c2ln"
    }

    @Test func asksFirstReusesUntilTheMarginThenAsksAgain() {
        var cache = TokenCache()
        #expect(cache.current(now: 1000) == nil)
        cache.store(Self.token(exp: 2000))
        #expect(cache.current(now: 1000) == .some(Self.token(exp: 2000)))
        #expect(cache.current(now: 2000 - TokenCache.refreshMargin - 1) != nil)
        #expect(cache.current(now: 2000 - TokenCache.refreshMargin) == nil)
    }

    @Test func aVisitorIsRememberedAndARefusalForgets() {
        var cache = TokenCache()
        cache.store(nil)
        #expect(cache.current(now: 5) == .some(nil))
        cache.store(Self.token(exp: 9000))
        cache.invalidate()
        #expect(cache.current(now: 5) == nil)
    }

    @Test(arguments: ["", "a.b", "a.!!!.c", "a.\(Base64.encode(Array("[1]".utf8), alphabet: .url)).c"])
    func anUnreadableTokenHasNoExpiryAndIsReused(_ token: String) {
        #expect(TokenCache.expiry(of: token) == nil)
        var cache = TokenCache()
        cache.store(token)
        #expect(cache.current(now: 1) == .some(token))
    }

    @Test func readsExp() {
        #expect(TokenCache.expiry(of: Self.token(exp: 1_764_500_000)) == 1_764_500_000)
    }
}
