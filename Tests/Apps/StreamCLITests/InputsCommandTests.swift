import Foundation
import StreamCLI
import Testing
import TestSupport

/// `stream inputs` against a private PulseAudio daemon with null sinks.
@Suite(.startsPeers) struct InputsCommandTests {
    static func run(_ arguments: [String], server: String, in directory: TemporaryConfigHome) -> RunResult {
        let capture = ConsoleCapture()
        var environment = directory.environment
        environment["PULSE_SERVER"] = server
        let code = StreamCLIMain.run(["stream", "inputs"] + arguments, console: capture.console,
                                     environment: environment)
        return RunResult(exitCode: code, output: capture.output, error: capture.error)
    }

    @Test func listsMonitorsCamerasAndWarnsAboutAMissingSavedInput() throws {
        let daemon = try PulseAudioDaemon(sinks: [("speakers", 48_000), ("headphones", 44_100)])
        defer { daemon.stop() }
        let directory = try TemporaryConfigHome()
        let noCameras = directory.url.path

        let listed = Self.run(["--video-devices", noCameras], server: daemon.server, in: directory)
        #expect(listed.exitCode == 0, "\(listed.error)")
        #expect(listed.output.contains("Audio inputs:"))
        #expect(listed.output.contains("* speakers.monitor"))
        #expect(listed.output.contains("headphones.monitor"))
        #expect(listed.output.contains("44100 Hz, monitor)"))
        #expect(listed.output.contains("System audio (app audio): speakers.monitor"))
        #expect(listed.output.contains("Cameras:\n  none found"))
        #expect(listed.error.isEmpty)

        let saved = runCLI(["settings", "set", "audio-input", "headphones.monitor"], in: directory)
        #expect(saved.exitCode == 0)
        let marked = Self.run(["--video-devices", noCameras], server: daemon.server, in: directory)
        #expect(marked.output.contains("monitor, saved)"))

        _ = runCLI(["settings", "set", "audio-input", "alsa_input.unplugged"], in: directory)
        let missing = Self.run(["--video-devices", noCameras], server: daemon.server, in: directory)
        #expect(missing.exitCode == 0)
        #expect(missing.error.contains("stream: warning: audio input 'alsa_input.unplugged' is not available; "
                                           + "using the default input 'Monitor of Null Output'"))

        let json = Self.run(["--json", "--video-devices", noCameras], server: daemon.server, in: directory)
        #expect(json.exitCode == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let inputs = try #require(object["audioInputs"] as? [[String: Any]])
        #expect(inputs.compactMap { $0["id"] as? String }.sorted() == ["headphones.monitor", "speakers.monitor"])
        #expect(inputs.allSatisfy { $0["isMonitor"] as? Bool == true })
        #expect(object["systemAudio"] as? String == "speakers.monitor")
        #expect((object["cameras"] as? [Any])?.isEmpty == true)
    }

    @Test func unreachableServerFailsButStillListsCameras() throws {
        let directory = try TemporaryConfigHome()
        let result = Self.run(["--video-devices", directory.url.path], server: "unix:\(directory.url.path)/none",
                              in: directory)
        #expect(result.exitCode == 1)
        #expect(result.output.contains("unavailable (cannot connect to unix:"))
        #expect(result.output.contains("Cameras:"))
        #expect(result.error.contains("stream: cannot connect to unix:"))
    }
}
