import FLV
import Foundation
import TestSupport
import Testing

/// The `stream` binary broadcasting to nginx-rtmp, or to `stream serve`, while the server crashes (SIGKILL; nginx's
/// master and worker) and comes back a few seconds later, twice: the broadcast reports the loss, reconnects on its
/// own, and every recording the server makes after a restart starts with the sequence headers (and, where the
/// server records what it got, the metadata) and a keyframe, and decodes cleanly; the broadcaster's memory stays
/// flat through the outages while its send queue drops by policy.
@Suite(.serialized) struct FaultServerRestartTests {
    /// A server the test can crash and start again on the same port and recording directory.
    enum Ingest: String, CustomStringConvertible, CaseIterable {
        case nginx, serve
        var description: String { rawValue }
    }

    /// A running ingest of either kind.
    final class RunningIngest: @unchecked Sendable {
        // Safe: used from the test's one task only.
        let kind: Ingest
        let url: String
        private let nginx: NginxRTMP?
        private var serve: BackgroundProcess?
        private let work: TemporaryDirectory
        private let port: Int

        init(_ kind: Ingest) throws {
            self.kind = kind
            work = try TemporaryDirectory("restart-ingest")
            switch kind {
            case .nginx:
                let nginx = try NginxRTMP()
                self.nginx = nginx
                port = nginx.port
                url = nginx.rtmpURL
            case .serve:
                nginx = nil
                port = try FreePort.next()
                url = "rtmp://127.0.0.1:\(port)/live"
                try startServe()
            }
        }

        private func startServe() throws {
            serve = try BackgroundProcess(try StreamExecutable.url().path, [
                "serve", "--listen", "127.0.0.1:\(port)", "--no-http", "--record-dir", work.file("recordings"),
            ], environment: TemporaryConfigHome.environment(in: work.path), errorLog: work.file("serve.err"))
            try FreePort.waitUntilListening(port)
        }

        /// Whether the server's recordings hold the metadata it received (nginx writes its own, not ours).
        var recordsReceivedMetadata: Bool { kind == .serve }

        func crash() {
            nginx?.crash()
            serve?.crash()
        }

        func restart() throws {
            if let nginx { try nginx.restart() } else { try startServe() }
        }

        func stop() {
            nginx?.stop()
            serve?.stop()
        }

        func recordings() -> [String] {
            if let nginx { return nginx.recordings() }
            return NginxRTMP.flvFiles(in: work.file("recordings"))
        }

        var log: String {
            nginx?.errorLog ?? ((try? String(contentsOfFile: work.file("serve.err"), encoding: .utf8)) ?? "")
        }
    }

    /// The tags of an FLV recording up to the first damaged or cut-off tag (a crashed server leaves one behind).
    static func leadingTags(of path: String) throws -> [FLVTag] {
        var reader = FLVReader()
        reader.append(try Array(Data(contentsOf: URL(fileURLWithPath: path))))
        var tags: [FLVTag] = []
        while let tag = try? reader.next() { tags.append(tag) }
        return tags
    }

    @Test(arguments: Ingest.allCases)
    func theServerCrashesTwiceAndTheBroadcastComesBackEachTime(_ kind: Ingest) async throws {
        let ingest = try RunningIngest(kind)
        defer { ingest.stop() }
        let key = "restart-secret-key-7f3a"
        let broadcaster = try BroadcasterProcess(url: ingest.url, key: key, arguments: [
            "--duration", "34", "--quality", "480", "--fps", "24", "--test-size", "640x360", "--video-bitrate", "800",
            "--pip", "off", "--adaptive-bitrate", "off",
        ])
        defer { broadcaster.stop() }
        let lines = broadcaster.lines
        let memory = broadcaster.memory

        _ = try await lines.wait(for: "Broadcasting", timeout: .seconds(30))
        try await Task.sleep(for: .seconds(5))
        let beforeFirstCrash = ContinuousClock.now
        var recoveries: [Duration] = []
        var firstCrash: ContinuousClock.Instant?
        for outage in 1...2 {
            ingest.crash()
            firstCrash = firstCrash ?? .now
            _ = try await lines.wait(for: "connection lost", count: outage, timeout: .seconds(15))
            try await Task.sleep(for: .seconds(3))
            try ingest.restart()
            let restarted = ContinuousClock.now
            let back = try await lines.wait(for: "live again", count: outage, timeout: .seconds(30))
            recoveries.append(restarted.duration(to: back))
            try await Task.sleep(for: .seconds(4))
        }
        let status = broadcaster.waitForExit(timeout: 60)
        let output = lines.text
        let errors = broadcaster.errors
        let before = memory.peak(from: beforeFirstCrash - .seconds(3), to: beforeFirstCrash)
        let during = memory.peak(from: beforeFirstCrash)
        print("\(kind) crash/restart ×2: recovered \(recoveries) after each restart (status line polled every "
              + "250 ms); broadcaster RSS peak \(before) before the first crash, \(during) from it to the end\n"
              + output)

        #expect(status == 0, "exit \(String(describing: status)): \(errors)")
        #expect(!(output + errors).contains(key), "the stream key was printed")
        #expect(lines.count(containing: "connection lost") == 2, "\(output)")
        #expect(lines.count(containing: "live again after") == 2, "\(output)")
        let summary = try #require(lines.all.last { $0.text.hasPrefix("Broadcast ended") }?.text, "\(output)")
        #expect(summary.contains("2 reconnects (offline"), "\(summary)")
        for recovery in recoveries {
            // The default backoff waits at most 8 s between attempts; a loaded machine adds to that.
            #expect(recovery < .seconds(15), "recovered \(recovery) after the restart")
        }
        // During each outage the send queue dropped by policy rather than growing: the status lines never show
        // more than the policy's 3 s (video goes past 900 ms, the audio past 3 s), and memory stays where it was.
        let queued = lines.statusValues("queue")
        #expect(!queued.isEmpty && queued.allSatisfy { $0 <= 3100 }, "queue spans \(queued)")
        #expect(before > 0)
        #expect(during <= before + BroadcasterProcess.memoryGrowthAllowance,
                "RSS \(before) bytes before the first crash, peak \(during) after")

        // The server recorded the first connection (cut by the crash) and one per restart.
        let recordings = ingest.recordings()
        try #require(recordings.count == 3, "recordings: \(recordings)\n\(ingest.log)")
        for recording in recordings.dropFirst() {
            let tags = try Self.leadingTags(of: recording)
            let media = tags.filter { $0.type != .scriptData && !$0.isSequenceHeader }
            if ingest.recordsReceivedMetadata {
                #expect(tags.first?.type == .scriptData, "\(recording) does not start with metadata")
            }
            #expect(tags.contains { $0.type == .video && $0.isSequenceHeader }, "\(recording): no avcC")
            #expect(tags.contains { $0.type == .audio && $0.isSequenceHeader }, "\(recording): no AAC config")
            let firstVideo = try #require(media.first { $0.type == .video }, "\(recording) has no video")
            #expect(firstVideo.isVideoKeyFrame, "\(recording) does not start at a keyframe")
            #expect(firstVideo.timestamp < 500, "\(recording) starts at \(firstVideo.timestamp) ms")
            let report = try ProbeReport.probe(recording)
            #expect(report.video?.codecName == "h264" && report.video?.width == 640, "\(recording)")
            #expect(report.audio?.codecName == "aac", "\(recording)")
            #expect((report.video?.frameCount ?? 0) >= 48, "\(recording): \(report.video?.frameCount ?? 0) frames")
            #expect(try ProbeReport.decodeErrors(recording).isEmpty, "\(recording) does not decode cleanly")
        }
    }
}
