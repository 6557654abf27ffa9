import Testing
import AppLogic
import Engine
import Publisher
import StreamCore

@Suite struct BroadcastFailureTests {
    static let key = "live_123456789_AbCdEfGhIjKlMnOp"
    static let url = IngestURL(scheme: .rtmps, host: "live.restream.io", app: "live")

    static let all: [BroadcastFailure] = [
        .missingCredentials, .unreadableCredentials(detail: "OSStatus -25300"), .networkUnavailable, .hostNotFound,
        .connectionRefused, .tlsFailure, .timeout, .connectionLost, .connectRejected(statusCode: nil),
        .publishRejected(statusCode: "NetStream.Publish.BadName"), .protocolError, .encoderFailed(detail: "-12902"),
        .stopped(detail: "record out.flv: cannot write the recording"), .protocolMismatch(.whip),
        .webRTCUnavailable,
    ]

    /// What the engine's error says, as the RTMP client and the connector (Network.framework's errors mapped to
    /// `LinkError`) produce it, and what the phone shows.
    @Test(arguments: [
        // At the start (the first connect failed): what went wrong, as it went wrong.
        (BroadcastError.Code.connectFailed, PublishError.Code.connectionRefused, nil as String?,
         BroadcastFailure.connectionRefused),
        (.connectFailed, .dnsFailure, nil, .hostNotFound),
        (.connectFailed, .tlsFailure, nil, .tlsFailure),
        (.connectFailed, .timeout, nil, .timeout),
        (.connectFailed, .networkUnavailable, nil, .networkUnavailable),
        (.connectFailed, .connectRejected, "NetConnection.Connect.Rejected",
         .connectRejected(statusCode: "NetConnection.Connect.Rejected")),
        (.connectFailed, .publishRejected, "NetStream.Publish.BadName",
         .publishRejected(statusCode: "NetStream.Publish.BadName")),
        (.connectFailed, .protocolError, nil, .protocolError),
        // Once live, every reconnect attempt failed: the connection was lost, whatever the last attempt met...
        (.connectionLost, .connectionRefused, nil, .connectionLost),
        (.connectionLost, .timeout, nil, .connectionLost),
        (.connectionLost, .networkUnavailable, nil, .connectionLost),
        // ...unless the ingest now refuses the stream.
        (.connectionLost, .publishRejected, "NetStream.Publish.Unauthorized",
         .publishRejected(statusCode: "NetStream.Publish.Unauthorized")),
    ])
    func engineFailures(_ code: BroadcastError.Code, _ publish: PublishError.Code, _ status: String?,
                        _ expected: BroadcastFailure) {
        let error = BroadcastError(code, "rtmps://live.restream.io/live/••••: it failed", isTransient: true,
                                   publishError: PublishError(publish, "it failed", serverStatusCode: status))
        #expect(BroadcastFailure(error) == expected)
    }

    @Test func networkFrameworkErrorsReachThePhoneAsTheRightFailure() {
        // The extension maps NWError.posix(code) with LinkError.kind(posix:), .dns and .tls to their kinds, and an
        // unsatisfied path to .noPath; the RTMP client turns them into the publish errors above.
        let cases: [(LinkError.Kind, BroadcastFailure)] = [
            (LinkError.kind(posix: .ECONNREFUSED), .connectionRefused), (.dns, .hostNotFound), (.tls, .tlsFailure),
            (LinkError.kind(posix: .ETIMEDOUT), .timeout), (.noPath, .networkUnavailable),
            (LinkError.kind(posix: .ENETUNREACH), .networkUnavailable), (LinkError.kind(posix: .ECONNRESET),
                                                                         .connectionLost),
        ]
        for (kind, expected) in cases {
            let publish = PublishError(LinkError(kind, "127.0.0.1:1935: \(kind)"), secrets: [])
            let error = BroadcastError(.connectFailed, publish.description, publishError: publish)
            #expect(BroadcastFailure(error) == expected, "\(kind)")
        }
    }

    @Test func encoderAndOtherFailuresKeepTheirDetail() {
        #expect(BroadcastFailure(BroadcastError(.encoderFailed, "OSStatus -12902"))
                    == .encoderFailed(detail: "OSStatus -12902"))
        #expect(BroadcastFailure(BroadcastError(.recordingFailed, "disk full")) == .stopped(detail: "disk full"))
    }

    @Test(arguments: all)
    func messagesNeverContainTheKey(_ failure: BroadcastFailure) {
        let message = failure.message(url: Self.url, streamKey: Self.key)
        #expect(!message.contains(Self.key))
        #expect(!message.isEmpty)
    }

    @Test func aKeyEchoedByTheServerIsMasked() {
        let failure = BroadcastFailure.publishRejected(statusCode: "NetStream.Publish.BadName \(Self.key)")
        let message = failure.message(url: Self.url, streamKey: Self.key)
        #expect(!message.contains(Self.key))
        #expect(message.contains(Redaction.mask))
    }

    @Test func messagesNameTheServerAndWhatToDo() {
        let refused = BroadcastFailure.publishRejected(statusCode: "NetStream.Publish.BadName")
            .message(url: Self.url, streamKey: Self.key)
        #expect(refused.contains("live.restream.io:443"))
        #expect(refused.contains("NetStream.Publish.BadName"))
        #expect(refused.contains("stream key"))
        #expect(BroadcastFailure.hostNotFound.message(url: nil, streamKey: nil).contains("the ingest server"))
    }

    @Test func codesAreDistinct() {
        #expect(Set(Self.all.map(\.code)).count == Self.all.count)
    }
}
