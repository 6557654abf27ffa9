import Testing
import AppLogic
import RTMP
import StreamCore

@Suite struct BroadcastFailureTests {
    static let key = "live_123456789_AbCdEfGhIjKlMnOp"
    static let url = IngestURL(scheme: .rtmps, host: "live.restream.io", app: "live")

    static let all: [BroadcastFailure] = [
        .missingCredentials, .unreadableCredentials(detail: "OSStatus -25300"), .networkUnavailable, .hostNotFound,
        .connectionRefused, .tlsFailure, .timeout, .connectionLost, .connectRejected(statusCode: nil),
        .publishRejected(statusCode: "NetStream.Publish.BadName"), .protocolError, .encoderFailed(detail: "-12902"),
    ]

    @Test(arguments: [
        (RTMPError.Code.connectRejected, "NetConnection.Connect.Rejected" as String?,
         BroadcastFailure.connectRejected(statusCode: "NetConnection.Connect.Rejected")),
        (.publishRejected, "NetStream.Publish.BadName", .publishRejected(statusCode: "NetStream.Publish.BadName")),
        (.closed, nil, .connectionLost),
        (.malformedChunk, nil, .protocolError),
        (.unsupportedVersion, nil, .protocolError),
        (.invalidState, nil, .protocolError),
    ])
    func rtmpFailures(_ code: RTMPError.Code, _ status: String?, _ expected: BroadcastFailure) {
        #expect(BroadcastFailure(rtmp: code, statusCode: status) == expected)
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
