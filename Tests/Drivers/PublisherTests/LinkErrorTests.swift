#if canImport(Glibc)
import Glibc
#endif
import Publisher
import Testing

/// What a socket error means to a broadcast: the mapping both platforms' byte streams use (Linux's socket calls,
/// Network.framework's `NWError.posix`).
struct LinkErrorTests {
    @Test(arguments: [
        (POSIXErrorCode.ECONNREFUSED, LinkError.Kind.refused),
        (.ETIMEDOUT, .timedOut),
        (.ENETDOWN, .unreachable),
        (.ENETUNREACH, .unreachable),
        (.EHOSTUNREACH, .unreachable),
        (.EHOSTDOWN, .unreachable),
        (.ECONNRESET, .closed),
        (.EPIPE, .closed),
        (.ECONNABORTED, .closed),
    ])
    func posixCodesMapToKinds(_ code: POSIXErrorCode, _ kind: LinkError.Kind) {
        #expect(LinkError.kind(posix: code) == kind)
    }

    @Test(arguments: [
        (LinkError.Kind.refused, PublishError.Code.connectionRefused, true),
        (.dns, .dnsFailure, true),
        (.tls, .tlsFailure, false),
        (.timedOut, .timeout, true),
        (.noPath, .networkUnavailable, true),
        (.unreachable, .networkUnavailable, true),
        (.closed, .connectionLost, true),
        (.bufferFull, .connectionLost, true),
    ])
    func everyKindBecomesAPublishErrorWithTheRightRetry(_ kind: LinkError.Kind, _ code: PublishError.Code,
                                                        _ transient: Bool) {
        let error = PublishError(LinkError(kind, "live.example:1935 said no to key-123"), secrets: ["key-123"])
        #expect(error.code == code)
        #expect(error.isTransient == transient)
        #expect(!error.description.contains("key-123"))
    }

    @Test func aMessageTooLargeIsNotARetry() {
        #expect(!PublishError(.messageTooLarge, "a 17 MB frame").isTransient)
    }
}
