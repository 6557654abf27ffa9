import FLV
import Foundation
import Publisher
import StreamCore
import TestSupport
import Testing

/// Our RTMP client against nginx-rtmp, an independent ingest, over RTMP and RTMPS.
@Suite(.serialized) struct PublisherNginxTests {
    @Test(arguments: [false, true])
    func publishedStreamIsRecordedIntact(overTLS: Bool) async throws {
        let nginx = try NginxRTMP(tls: overTLS)
        let work = try TemporaryDirectory()
        let fixture = try MediaFixture.makeFLV(in: work, seconds: 3, size: "640x360", fps: 30, gop: 60)
        let url = try #require(overTLS ? nginx.rtmpsURL : nginx.rtmpURL)
        let options = RTMPClient.Options(caFile: nginx.certificate?.certificateFile)
        let sent = try await FLVPublishing.publish(file: fixture, to: url, key: "test-key-\(overTLS)",
                                                   options: options)
        nginx.stop()

        let recording = try #require(nginx.recordings().first, "nginx recorded nothing: \(nginx.errorLog)")
        let original = try ProbeReport.probe(fixture)
        let report = try ProbeReport.probe(recording)
        #expect(report.video?.codecName == "h264")
        #expect(report.audio?.codecName == "aac")
        #expect(report.video?.width == 640 && report.video?.height == 360)
        #expect(report.audio?.sampleRate == 48000)
        #expect(sent.videoFrames == 90)
        #expect(report.video?.frameCount == original.video?.frameCount)
        #expect(report.audio?.frameCount == original.audio?.frameCount)
        let videoTimes = try ProbeReport.packetTimes(recording, stream: "v:0")
        let audioTimes = try ProbeReport.packetTimes(recording, stream: "a:0")
        #expect(videoTimes.count == 90)
        #expect(zip(videoTimes, videoTimes.dropFirst()).allSatisfy { $0 < $1 }, "video timestamps not monotonic")
        #expect(zip(audioTimes, audioTimes.dropFirst()).allSatisfy { $0 < $1 }, "audio timestamps not monotonic")
        #expect(try ProbeReport.decodeErrors(recording) == "")
    }

    @Test func rtmpsWithAnUntrustedCertificateFailsWithACertificateError() async throws {
        let nginx = try NginxRTMP(tls: true)
        let url = try IngestURL(parsing: try #require(nginx.rtmpsURL))
        let client = try RTMPClient()
        let error = await #expect(throws: PublishError.self) { try await client.connect(to: url) }
        #expect(error?.code == .tlsFailure)
        #expect(error?.description.contains("certificate") == true, "\(String(describing: error))")
        #expect(error?.description.contains("127.0.0.1") == true)
        #expect(error?.isTransient == false)
    }

    @Test func rtmpsWithTheWrongExtraCAStillFails() async throws {
        let nginx = try NginxRTMP(tls: true)
        let other = try TemporaryDirectory()
        let unrelated = try TestCertificate.make(in: other, name: "unrelated")
        let url = try IngestURL(parsing: try #require(nginx.rtmpsURL))
        let client = try RTMPClient(options: .init(caFile: unrelated.certificateFile))
        let error = await #expect(throws: PublishError.self) { try await client.connect(to: url) }
        #expect(error?.code == .tlsFailure)
    }

    @Test func refusedConnectionNamesTheServer() async throws {
        let port = try FreePort.next()
        let client = try RTMPClient()
        let error = await #expect(throws: PublishError.self) {
            try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(port)/live"))
        }
        #expect(error?.code == .connectionRefused)
        #expect(error?.description.contains("127.0.0.1:\(port)") == true)
        #expect(error?.isTransient == true)
    }

    @Test func nginxRefusingASecondPublisherOfTheSameNameIsAPublishRejection() async throws {
        let nginx = try NginxRTMP()
        let url = try IngestURL(parsing: nginx.rtmpURL)
        let first = try RTMPClient()
        try await first.connect(to: url)
        try await first.publish(streamKey: "the-secret-name")
        let second = try RTMPClient()
        try await second.connect(to: url)
        let error = await #expect(throws: PublishError.self) { try await second.publish(streamKey: "the-secret-name") }
        #expect(error?.code == .publishRejected)
        #expect(error?.serverStatusCode == "NetStream.Publish.BadName")
        #expect(error?.description.contains("the-secret-name") == false)
        await first.close()
        await second.close()
    }
}
