import Testing
import AppLogic

@Suite struct NetworkFailureKindTests {
    @Test(arguments: [
        // (kind, before live, after live)
        (NetworkFailureKind.noPath, BroadcastFailure.networkUnavailable, BroadcastFailure.networkUnavailable),
        (.dns, .hostNotFound, .hostNotFound),
        (.tls, .tlsFailure, .tlsFailure),
        (.refused, .connectionRefused, .connectionRefused),
        (.timedOut, .timeout, .connectionLost),
        (.unreachable, .networkUnavailable, .connectionLost),
        (.other, .connectionLost, .connectionLost),
    ])
    func failures(_ kind: NetworkFailureKind, _ beforeLive: BroadcastFailure, _ afterLive: BroadcastFailure) {
        #expect(kind.failure(wasLive: false) == beforeLive)
        #expect(kind.failure(wasLive: true) == afterLive)
    }
}
