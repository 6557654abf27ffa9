import FLV
import LiveHLS
import Posters
@testable import StreamCLI
import Testing

/// When a poster request decodes, waits or is served what there is.
@Suite struct PosterCacheTests {
    static func keyframe(_ number: UInt64) throws -> PosterKeyframes.Keyframe {
        PosterKeyframes.Keyframe(configuration: try AVCDecoderConfigurationRecord(sps: [0x67, 0x42, 0xC0, 0x1E], pps: [0x68, 0xCE]),
                                 body: [0x17, 0x01, 0, 0, 0, 0, 0, 0, 1, 0x65], number: number)
    }

    static let picture = PosterPicture(jpeg: [0xFF, 0xD8, 0xFF, 0xD9], width: 2, height: 2)

    @Test func oneDecodePerShowOthersWaitThenTenSecondsOfCache() throws {
        var cache = PosterCache<Int>()
        let first = try Self.keyframe(1)
        guard case .decode = cache.request(show: "s", keyframe: first, now: 0, waiter: 1) else {
            Issue.record("the first request did not decode")
            return
        }
        guard case .wait = cache.request(show: "s", keyframe: first, now: 5, waiter: 2) else {
            Issue.record("a second request during the decode did not wait")
            return
        }
        let (waiters, result) = cache.decoded(show: "s", keyframe: 1, result: .success(Self.picture),
                                              entityTag: "abc", now: 20)
        #expect(waiters == [2] && (try? result.get())?.madeAt == 20)
        guard case .serve(let poster) = cache.request(show: "s", keyframe: try Self.keyframe(2), now: 9_000,
                                                       waiter: 3) else {
            Issue.record("a request within ten seconds was not served the poster")
            return
        }
        #expect(poster.entityTag == "abc")
        // Older than ten seconds but the same keyframe: nothing new to decode.
        guard case .serve = cache.request(show: "s", keyframe: first, now: 60_000, waiter: 4) else {
            Issue.record("the same keyframe was decoded again")
            return
        }
        // Older, with a new keyframe: decode; meanwhile others get the old poster at once.
        guard case .decode(let next) = cache.request(show: "s", keyframe: try Self.keyframe(2), now: 60_000,
                                                     waiter: 5), next.number == 2 else {
            Issue.record("a stale poster with a new keyframe was not decoded")
            return
        }
        guard case .serve(let old) = cache.request(show: "s", keyframe: try Self.keyframe(2), now: 60_001,
                                                    waiter: 6) else {
            Issue.record("a request during a refresh waited")
            return
        }
        #expect(old.keyframe == 1)
    }

    @Test func decodesAreBoundedAndFailuresAreNotRetriedForTheSameKeyframe() throws {
        var cache = PosterCache<Int>()
        for show in ["a", "b"] {
            guard case .decode = cache.request(show: show, keyframe: try Self.keyframe(1), now: 0, waiter: 0) else {
                Issue.record("\(show) did not decode")
                return
            }
        }
        guard case .busy = cache.request(show: "c", keyframe: try Self.keyframe(1), now: 0, waiter: 0) else {
            Issue.record("a third decode at once was started")
            return
        }
        _ = cache.decoded(show: "a", keyframe: 1, result: .failure(PosterError.decodeFailed("a test")), entityTag: "",
                          now: 1)
        guard case .failed = cache.request(show: "a", keyframe: try Self.keyframe(1), now: 2, waiter: 0) else {
            Issue.record("a keyframe that failed was decoded again")
            return
        }
        guard case .decode = cache.request(show: "c", keyframe: try Self.keyframe(1), now: 2, waiter: 0) else {
            Issue.record("a decode slot was not freed")
            return
        }
    }

    @Test func theEndOfAPictureForgetsItsPoster() throws {
        var cache = PosterCache<Int>()
        _ = cache.request(show: "s", keyframe: try Self.keyframe(1), now: 0, waiter: 0)
        _ = cache.decoded(show: "s", keyframe: 1, result: .success(Self.picture), entityTag: "t", now: 1)
        #expect(cache.request(show: "s", keyframe: nil, now: 2, waiter: 0) == nil)
        #expect(cache.count == 0)
        // Ended during a decode: its waiters are answered, nothing is kept.
        _ = cache.request(show: "s", keyframe: try Self.keyframe(1), now: 3, waiter: 0)
        _ = cache.request(show: "s", keyframe: try Self.keyframe(1), now: 3, waiter: 7)
        cache.ended(show: "s")
        let (waiters, _) = cache.decoded(show: "s", keyframe: 1, result: .success(Self.picture), entityTag: "t",
                                         now: 4)
        #expect(waiters == [7] && cache.count == 0)
    }
}
