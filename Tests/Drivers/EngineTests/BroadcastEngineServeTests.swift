import Engine
import FLV
import Foundation
import IngestServer
import Locking
import Publisher
import StreamCore
import TestSupport
import Testing

/// The portable output layer alone (no capture, no encoder of ours: the media is H.264 and AAC that ffmpeg made) over
/// Linux's TCP into our own ingest server (`stream serve`, in-process): the RTMP client and the outputs that the iOS
/// extension runs over `NWConnection`.
@Suite(.serialized, .startsPeers) struct BroadcastEngineServeTests {
    /// A clip as a broadcaster would hand it over: the headers, then media tags in timestamp order.
    struct Clip {
        var headers: StreamHeaders
        var media: [FLVTag]
        /// The clip's length in milliseconds (the last tag's timestamp plus a frame).
        var milliseconds: UInt32
    }

    /// `seconds` of a 320×180 25 fps test picture (40 ms frames: whole FLV milliseconds) with a keyframe every
    /// second and a 440 Hz tone, encoded by ffmpeg (libx264, AAC) into FLV and read back as tags.
    static func clip(seconds: Int, in directory: TemporaryDirectory) throws -> Clip {
        let path = directory.file("clip.flv")
        let made = try Subprocess.run("ffmpeg", [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25", "-f", "lavfi",
            "-i", "sine=frequency=440:sample_rate=48000", "-t", "\(seconds)", "-c:v", "libx264", "-preset",
            "ultrafast", "-tune", "zerolatency", "-g", "25", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k",
            "-ac", "2", "-f", "flv", path,
        ], timeout: 60)
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        var reader = FLVReader()
        reader.append(try Array(Data(contentsOf: URL(fileURLWithPath: path))))
        var tags: [FLVTag] = []
        while let tag = try reader.next() { tags.append(tag) }
        let metadata = try FLVMetadata(parsing: try #require(tags.first { $0.type == .scriptData }).body)
        let video = try #require(tags.first { $0.type == .video && $0.isSequenceHeader })
        let audio = try #require(tags.first { $0.type == .audio && $0.isSequenceHeader })
        let media = tags.filter { $0.type != .scriptData && !$0.isSequenceHeader }
        return Clip(headers: StreamHeaders(metadata: metadata, videoSequenceHeader: video, audioSequenceHeader: audio),
                    media: media, milliseconds: (media.last?.timestamp ?? 0) + 40)
    }

    /// Hands the clip's tags to `engine` in real time (each at its timestamp after `start`), looped, until
    /// `duration` has passed; `between(tag)` may replace a tag on its way (nil drops it).
    static func play(_ clip: Clip, into engine: BroadcastEngine, for duration: Duration,
                     replacing between: (FLVTag) -> FLVTag? = { $0 }) async throws {
        let start = ContinuousClock.now
        engine.setClockOrigin(start)
        var offset: UInt32 = 0
        while true {
            for var tag in clip.media {
                tag.timestamp = tag.timestamp &+ offset
                let due = start + .milliseconds(Int64(tag.timestamp))
                guard due < start + duration else { return }
                try await Task.sleep(until: due)
                if let replaced = between(tag) { engine.submit(replaced) }
            }
            offset = offset &+ clip.milliseconds
        }
    }

    private static func startServer(port: Int, recordDirectory: String) async throws -> (RTMPServer, Int) {
        try FileManager.default.createDirectory(atPath: recordDirectory, withIntermediateDirectories: true)
        let server = try RTMPServer(configuration: RTMPServer.Configuration(
            listen: ("127.0.0.1", port), recordDirectory: recordDirectory))
        return (server, try #require(try await server.start().rtmp))
    }

    /// The RTMP ingest of the in-process server on `port`.
    private static func ingest(_ port: Int) -> IngestURL {
        IngestURL(scheme: .rtmp, host: "127.0.0.1", port: port, app: "live")
    }

    /// The tags of a recording up to the first damaged or cut-off one (a stopped server may leave one behind).
    private static func tags(of path: String) throws -> [FLVTag] {
        var reader = FLVReader()
        reader.append(try Array(Data(contentsOf: URL(fileURLWithPath: path))))
        var tags: [FLVTag] = []
        while let tag = try? reader.next() { tags.append(tag) }
        return tags
    }

    @Test func reconnectsThroughAServerRestartAndEachRecordingStartsWithHeadersAndAKeyframe() async throws {
        let work = try TemporaryDirectory("engine-restart")
        let clip = try Self.clip(seconds: 4, in: work)
        let recordings = work.file("recordings")
        let (first, port) = try await Self.startServer(port: 0, recordDirectory: recordings)
        let server = Locked<RTMPServer?>(first)
        let sink = RTMPSink(url: Self.ingest(port), streamKey: "engine-restart", connector: TCPConnector())
        let output = BroadcastOutput(sink: sink, backoff: ReconnectBackoff(initialDelay: .milliseconds(300),
                                                                           jitter: 0.2))
        let engine = try BroadcastEngine(outputs: [output], headers: clip.headers,
                                         configuration: .init(videoBitrateKbps: 400, audioBitrateKbps: 64,
                                                              adaptiveBitrate: true))
        async let final = engine.run()
        #expect(await engine.waitUntilLive())
        async let played: Void = Self.play(clip, into: engine, for: .seconds(8))
        // The outage's timeline in wall time: the server goes at 2.5 s and is back 0.7 s later, mid-broadcast.
        try await Task.sleep(for: .milliseconds(2500))
        server.withLock { $0?.stop() }
        try await Task.sleep(for: .milliseconds(700))
        let (second, _) = try await Self.startServer(port: port, recordDirectory: recordings)
        server.withLock { $0 = second }
        try await played
        engine.finish()
        let outcome = await final
        second.stop()

        #expect(outcome == .ended(.stopped), "\(outcome)")
        let status = output.status
        #expect(status.reconnects == 1 && status.outages == 1, "\(status)")
        let files = NginxRTMP.flvFiles(in: recordings)
        try #require(files.count == 2, "\(files)")
        for file in files {
            let tags = try Self.tags(of: file)
            // What a fresh connection gets first: the metadata, then the two sequence headers.
            #expect(tags.first?.type == .scriptData, "\(file) does not start with the metadata")
            #expect(tags.contains { $0.type == .video && $0.isSequenceHeader }, "\(file): no avcC")
            #expect(tags.contains { $0.type == .audio && $0.isSequenceHeader }, "\(file): no AAC config")
            let firstVideo = try #require(tags.first { $0.type == .video && !$0.isSequenceHeader })
            #expect(firstVideo.isVideoKeyFrame, "\(file) does not start at a keyframe")
            #expect(firstVideo.timestamp < 500, "\(file) starts at \(firstVideo.timestamp) ms")
            #expect(try ProbeReport.probe(file).video?.width == 320)
            let errors = try ProbeReport.decodeErrors(file)
            #expect(errors.isEmpty, "\(file) does not decode cleanly: \(errors)")
        }
    }

    @Test func aFrameTooLargeForRTMPIsSkippedAndTheBroadcastGoesOn() async throws {
        let work = try TemporaryDirectory("engine-oversized")
        let clip = try Self.clip(seconds: 3, in: work)
        let recordings = work.file("recordings")
        let (server, port) = try await Self.startServer(port: 0, recordDirectory: recordings)
        defer { server.stop() }
        let output = BroadcastOutput(sink: RTMPSink(url: Self.ingest(port), streamKey: "oversized",
                                                    connector: TCPConnector()))
        let engine = try BroadcastEngine(outputs: [output], headers: clip.headers,
                                         configuration: .init(videoBitrateKbps: 400, audioBitrateKbps: 64,
                                                              adaptiveBitrate: false))
        async let final = engine.run()
        #expect(await engine.waitUntilLive())
        // The keyframe at 1 s comes out of the encoder 16 MiB large: RTMP's 24-bit length cannot carry it.
        let huge = [UInt8](repeating: 0, count: 0x100_0000)
        try await Self.play(clip, into: engine, for: .seconds(3)) { tag in
            guard tag.isVideoKeyFrame, tag.timestamp >= 1000, tag.timestamp < 1100 else { return tag }
            var oversized = tag
            oversized.body = Array(tag.body.prefix(5)) + huge
            return oversized
        }
        engine.finish()
        let outcome = await final
        #expect(outcome == .ended(.stopped), "\(outcome)")
        let status = output.status
        #expect(status.oversizedFrames == 1 && status.outages == 0, "\(status)")
        #expect(status.lastError?.code == .frameTooLarge)
        let file = try #require(NginxRTMP.flvFiles(in: recordings).first)
        let packets = try ProbeReport.packetTimes(file, stream: "v:0")
        // The frames until the next keyframe were dropped with it; the rest of the broadcast went out.
        #expect(packets.count >= 50 && packets.last ?? 0 > 2.5, "\(packets.count) video packets")
        #expect(try ProbeReport.decodeErrors(file).isEmpty, "\(file) does not decode cleanly")
    }
}
