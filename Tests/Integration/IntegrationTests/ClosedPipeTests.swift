import Foundation
import TestSupport
import Testing

/// `stream` with its output piped into a reader that goes away (`stream ... | head -1`): a broadcaster or server
/// outlives its terminal or pipe. Writes to the closed pipe are dropped, never fatal (SIGPIPE is ignored).
@Suite(.serialized) struct ClosedPipeTests {
    /// Runs `stream ARGUMENTS 2>&1 | head -1` under bash; returns what head printed and stream's own exit code.
    static func runPipedIntoHead(_ arguments: [String], environment: [String: String],
                                 timeout: TimeInterval) throws -> (firstLine: String, status: Int32?) {
        let stream = try StreamExecutable.url().path
        let quoted = ([stream] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let script = quoted.joined(separator: " ") + " 2>&1 | head -1; echo \"stream exited ${PIPESTATUS[0]}\""
        let result = try Subprocess.run("bash", ["-c", script], timeout: timeout,
                                        environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let status = lines.last.flatMap { $0.hasPrefix("stream exited ") ? Int32($0.dropFirst(14)) : nil }
        return (lines.first ?? "", status)
    }

    @Test func aBroadcastAndItsRecordingRunTheWholeDurationAfterThePipeCloses() throws {
        let home = try TemporaryDirectory("closed-pipe")
        let recording = home.file("y.flv")
        let environment = ["XDG_CONFIG_HOME": home.path, "HOME": home.path, "TERM": "dumb"]
        let run = try Self.runPipedIntoHead(["broadcast", "--source", "test", "--duration", "12", "--record", recording,
                                             "--quality", "480", "--fps", "24", "--test-size", "320x180"],
                                            environment: environment, timeout: 60)
        #expect(run.firstLine.hasPrefix("Broadcasting"), "\(run.firstLine)")
        // Before: killed by SIGPIPE (141) at the first status line after head left, 5 s in.
        #expect(run.status == 0, "stream exited \(String(describing: run.status))")
        let report = try ProbeReport.probe(recording)
        #expect((report.durationSeconds ?? 0) > 11.5, "the recording lasts \(report.durationSeconds ?? 0) s")
        #expect(try ProbeReport.decodeErrors(recording) == "")
    }

    @Test func aServerKeepsServingAndRecordingAfterThePipeCloses() async throws {
        let work = try TemporaryDirectory("closed-pipe-serve")
        let records = work.file("records")
        let fixture = try MediaFixture.makeFLV(in: work, seconds: 2)
        let port = try FreePort.next()
        // Started at once on a thread of its own (an async let's child task may wait seconds for a pool thread).
        let served = OffPoolTask("stream-serve") {
            try Self.runPipedIntoHead(["serve", "--listen", "127.0.0.1:\(port)", "--no-http", "--record-dir", records,
                                       "--duration", "6"], environment: TemporaryConfigHome.environment(in: work.path),
                                      timeout: 30)
        }
        try FreePort.waitUntilListening(port)
        // Every event line (publish started, recording to, ...) now goes to a pipe nobody reads.
        let push = try Subprocess.run("ffmpeg", ["-v", "error", "-i", fixture, "-c", "copy", "-f", "flv",
                                                 "rtmp://127.0.0.1:\(port)/live/piped"], timeout: 20)
        let run = try await served.value
        #expect(push.status == 0, "\(push.stderr)")
        #expect(run.firstLine.hasPrefix("Publish to rtmp://127.0.0.1:\(port)/live"), "\(run.firstLine)")
        #expect(run.status == 0, "stream exited \(String(describing: run.status))")
        let recording = try #require(NginxRTMP.flvFiles(in: records).first)
        #expect(try ProbeReport.probe(recording).video?.frameCount == 60)
    }

    @Test func theDemoFinishesAfterThePipeCloses() throws {
        let work = try TemporaryDirectory("closed-pipe-demo")
        let output = work.file("demo")
        let environment = ["XDG_CONFIG_HOME": work.path, "HOME": work.path, "TERM": "dumb"]
        let run = try Self.runPipedIntoHead(["demo", "--duration", "3", "--output", output, "--quality", "480",
                                             "--fps", "24", "--test-size", "320x180"],
                                            environment: environment, timeout: 60)
        #expect(run.firstLine.hasPrefix("Built-in server listening"), "\(run.firstLine)")
        #expect(run.status == 0, "stream exited \(String(describing: run.status))")
        // The demo records fragmented MP4.
        let recording = try #require(NginxRTMP.files(in: output, ending: ".mp4").first)
        #expect((try ProbeReport.probe(recording).durationSeconds ?? 0) > 2)
    }
}
