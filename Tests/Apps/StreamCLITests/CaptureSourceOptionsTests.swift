import Capture
import Foundation
import Media
import StreamCore
import Testing
import TestSupport
@testable import StreamCLI

@Suite(.startsPeers) struct CaptureSourceOptionsTests {
    static func parse(_ words: [String], environment: [String: String]) throws -> CaptureSourceOptions {
        let arguments = try ArgumentParser.parse(words, options: CaptureSourceOptions.specs)
        return try CaptureSourceOptions(arguments, environment: environment)
    }

    @Test func screenIsTheDefaultOnADesktopAndTheTestPatternElsewhere() throws {
        let desktop = try Self.parse([], environment: ["DISPLAY": ":0"])
        #expect(desktop.screen == .x11(X11ScreenSource.Options(display: ":0")))
        let headless = try Self.parse([], environment: [:])
        #expect(headless.screen == .testPattern)
        let explicit = try Self.parse(["--display", ":5", "--region", "640x360+10+20", "--no-cursor",
                                       "--camera", "y4m:/tmp/cam.y4m"], environment: [:])
        #expect(explicit.screen == .x11(X11ScreenSource.Options(
            display: ":5", region: ScreenRegion(x: 10, y: 20, width: 640, height: 360), drawsCursor: false)))
        #expect(explicit.camera == "y4m:/tmp/cam.y4m")
        #expect(try Self.parse(["--source", "test"], environment: ["DISPLAY": ":0"]).screen == .testPattern)
    }

    @Test(arguments: [["--source", "webcam"], ["--source", "screen", "--region", "big"]])
    func badValuesAreUsageErrors(words: [String]) {
        let error = #expect(throws: CLIError.self) { try Self.parse(words, environment: ["DISPLAY": ":0"]) }
        #expect(error?.exitCode == ExitCode.usage)
    }

    @Test func opensTheSavedInputOrFallsBackWithAWarning() throws {
        let daemon = try PulseAudioDaemon(sinks: [("speakers", 48_000)])
        defer { daemon.stop() }
        try daemon.playTone(frequency: 440, into: "speakers")
        var settings = StreamSettings()
        settings.audioInputID = "gone"
        let queue = AudioBufferQueue(capacity: 64)
        var warnings: [String] = []
        let capture = try CaptureSourceOptions.openAudio(settings: settings, server: daemon.server, into: queue) {
            warnings.append($0)
        }
        defer { capture.stop() }
        let name = capture.plan.microphone.name
        #expect(warnings == ["audio input 'gone' is not available; using the default input '\(name)'"])
        let deadline = Date().addingTimeInterval(5)
        while queue.count < 3 && Date() < deadline { usleep(20_000) }
        let buffer = try #require(queue.pop())
        #expect(buffer.frameCount == 1024 && buffer.format == PulseAudioSource.format)
    }
}
