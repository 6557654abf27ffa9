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

/// Network.framework's errors by domain and code, as the iOS shell's `NetworkTransport` hands them over.
struct LinkErrorNetworkTests {
    @Test(arguments: [
        // (domain, code, kind, words of the message)
        (LinkError.NetworkDomain.posix, POSIXErrorCode.ECONNREFUSED.rawValue, LinkError.Kind.refused,
         "live.example:1935: "),
        (.posix, POSIXErrorCode.ETIMEDOUT.rawValue, .timedOut, "live.example:1935: "),
        (.posix, POSIXErrorCode.ENETUNREACH.rawValue, .unreachable, "live.example:1935: "),
        (.posix, POSIXErrorCode.ECONNRESET.rawValue, .closed, "live.example:1935: "),
        (.posix, -1, .closed, "live.example:1935: "),                   // no such POSIX code
        (.dns, -65554, .dns, "cannot resolve live.example:1935: "),     // kDNSServiceErr_NoSuchRecord
        (.tls, -9807, .tls, "TLS with live.example:1935 failed: "),     // errSSLXCertChainInvalid
        (.unknown, 0, .closed, "live.example:1935: "),
    ])
    func domainAndCodeDecideTheKind(_ domain: LinkError.NetworkDomain, _ code: Int32, _ kind: LinkError.Kind,
                                    _ words: String) {
        let error = LinkError(domain: domain, code: code, detail: "the error", endpoint: "live.example:1935")
        #expect(error.kind == kind)
        #expect(error.description == words + "the error")
    }

    @Test(arguments: LinkError.NetworkDomain.allCases)
    func anUnsatisfiedPathIsNoPathWhateverTheError(_ domain: LinkError.NetworkDomain) {
        let error = LinkError(domain: domain, code: POSIXErrorCode.ECONNREFUSED.rawValue, detail: "the error",
                              endpoint: "live.example:1935", pathUnsatisfied: true)
        #expect(error.kind == .noPath)
        #expect(error.description == "no network path to live.example:1935: the error")
    }
}
