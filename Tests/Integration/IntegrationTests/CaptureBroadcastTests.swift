import Foundation
import StreamCLI
import TestSupport
import Testing

/// `stream broadcast --source screen` against real peers: an Xvfb display showing solid-colour windows and a private
/// PulseAudio server whose null sink carries a tone; the broadcast is recorded and decoded with ffmpeg.
@Suite(.serialized) struct CaptureBroadcastTests {
    private struct Run {
        var exitCode: Int32
        var output: String
        var error: String
    }

    private static func stream(_ arguments: [String], home: TemporaryDirectory, pulse: PulseAudioDaemon?,
                               stdin: String = "") -> Run {
        let capture = ConsoleCapture(input: stdin)
        var environment = ["XDG_CONFIG_HOME": home.path, "HOME": home.path, "TERM": "dumb"]
        environment["PULSE_SERVER"] = pulse?.server
        let code = StreamCLIMain.run(["stream"] + arguments, console: capture.console, environment: environment)
        return Run(exitCode: code, output: capture.output, error: capture.error)
    }

    /// 480p (the 640×480 screen as it is), 24 fps, no PiP, three seconds.
    private static let small = ["--quality", "480", "--fps", "24", "--pip", "off", "--video-bitrate", "800",
                                "--duration", "3"]

    /// One decoded RGB frame of the recording, `seconds` in.
    private static func frame(of file: String, at seconds: Double, width: Int, height: Int,
                              in directory: TemporaryDirectory) throws -> [UInt8] {
        let raw = directory.file("frame.rgb")
        let decode = try Subprocess.run("ffmpeg", ["-v", "error", "-y", "-ss", "\(seconds)", "-i", file,
                                                   "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", raw])
        #expect(decode.status == 0, "\(decode.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        try #require(bytes.count == width * height * 3, "decoded \(bytes.count) bytes")
        return bytes
    }

    @Test func theScreenIsBroadcastWithItsWindowsWhereTheyAre() throws {
        let xvfb = try Xvfb(width: 640, height: 480)
        defer { xvfb.stop() }
        let pulse = try PulseAudioDaemon(sinks: [("speakers", 48_000)])
        defer { pulse.stop() }
        let red = try xvfb.showWindow(color: "red", width: 200, height: 160, x: 40, y: 40)
        defer { red.stop() }
        let blue = try xvfb.showWindow(color: "blue", width: 200, height: 160, x: 400, y: 280)
        defer { blue.stop() }
        usleep(1_500_000)  // ffplay maps its windows
        let home = try TemporaryDirectory()
        // Live to nginx-rtmp, an independent ingest; its recording is what gets decoded.
        let nginx = try NginxRTMP()
        let run = Self.stream(["broadcast", nginx.rtmpURL, "--key-stdin", "--source", "screen",
                               "--display", xvfb.display, "--no-cursor"] + Self.small,
                              home: home, pulse: pulse, stdin: "screen-capture-key\n")
        nginx.stop()
        #expect(run.exitCode == 0, "\(run.error)")
        #expect(!(run.output + run.error).contains("screen-capture-key"))
        let file = try #require(nginx.recordings().first, "nginx recorded nothing: \(nginx.errorLog)")
        let report = try ProbeReport.probe(file)
        #expect(report.video?.width == 640 && report.video?.height == 480)
        #expect(report.audio?.codecName == "aac")
        let pixels = try Self.frame(of: file, at: 2, width: 640, height: 480, in: home)
        func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int) {
            let offset = (y * 640 + x) * 3
            return (Int(pixels[offset]), Int(pixels[offset + 1]), Int(pixels[offset + 2]))
        }
        let inRed = pixel(140, 120)
        #expect(inRed.0 > 190 && inRed.1 < 60 && inRed.2 < 60, "\(inRed)")
        let inBlue = pixel(500, 360)
        #expect(inBlue.2 > 190 && inBlue.0 < 60 && inBlue.1 < 60, "\(inBlue)")
        let background = pixel(320, 20)
        #expect(background.0 < 40 && background.1 < 40 && background.2 < 40, "\(background)")
    }

    @Test func aRegionIsBroadcastAtItsOwnSize() throws {
        let xvfb = try Xvfb(width: 640, height: 480)
        defer { xvfb.stop() }
        let pulse = try PulseAudioDaemon(sinks: [("speakers", 48_000)])
        defer { pulse.stop() }
        let green = try xvfb.showWindow(color: "lime", width: 200, height: 160, x: 340, y: 260)
        defer { green.stop() }
        usleep(1_500_000)  // ffplay maps its window
        let home = try TemporaryDirectory()
        let file = home.file("region.flv")
        // The region's top-left quarter is black, the rest of it is the window.
        let run = Self.stream(["broadcast", "--source", "screen", "--display", xvfb.display, "--no-cursor",
                               "--region", "320x240+240+180", "--record", file] + Self.small,
                              home: home, pulse: pulse)
        #expect(run.exitCode == 0, "\(run.error)")
        #expect(run.output.contains("Broadcasting 320x240@24"), "\(run.output)")
        let report = try ProbeReport.probe(file)
        #expect(report.video?.width == 320 && report.video?.height == 240)
        let pixels = try Self.frame(of: file, at: 2, width: 320, height: 240, in: home)
        func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int) {
            let offset = (y * 320 + x) * 3
            return (Int(pixels[offset]), Int(pixels[offset + 1]), Int(pixels[offset + 2]))
        }
        let window = pixel(220, 160)
        #expect(window.1 > 190 && window.0 < 60 && window.2 < 60, "\(window)")
        let outside = pixel(40, 40)
        #expect(outside.0 < 40 && outside.1 < 40 && outside.2 < 40, "\(outside)")
    }

    @Test func theSavedInputsToneIsBroadcast() throws {
        let xvfb = try Xvfb(width: 320, height: 240)
        defer { xvfb.stop() }
        let pulse = try PulseAudioDaemon(sinks: [("speakers", 48_000), ("tone", 48_000)])
        defer { pulse.stop() }
        try pulse.playTone(frequency: 1000, into: "tone")
        let home = try TemporaryDirectory()
        let saved = Self.stream(["settings", "set", "audio-input", "tone.monitor"], home: home, pulse: pulse)
        #expect(saved.exitCode == 0, "\(saved.error)")
        let file = home.file("tone.flv")
        let run = Self.stream(["broadcast", "--source", "screen", "--display", xvfb.display, "--record", file]
                                + Self.small, home: home, pulse: pulse)
        #expect(run.exitCode == 0, "\(run.error)")
        #expect(!run.error.contains("not available"), "\(run.error)")
        let samples = try Self.decodedAudio(file, in: home)
        // Mean power per AAC-frame-sized block; the tone (amplitude 0.4) has 0.08, silence 0.
        let powers = stride(from: 0, to: samples.count - 1024, by: 1024).map { start in
            samples[start..<start + 1024].reduce(0) { $0 + $1 * $1 } / 1024
        }
        // The tone reaches the capture a moment after the broadcast starts; from then on there is no gap.
        let first = try #require(powers.firstIndex { $0 > 0.02 }, "no tone in \(powers.count) blocks")
        let tone = powers[first...]
        try #require(tone.count >= 24, "only \(tone.count) blocks of tone")
        // Under a sanitizer the instrumented capture runs several times slower and may miss a few blocks
        // (seen under ThreadSanitizer: 3 of 400).
        #expect(tone.filter { $0 < 0.02 }.count <= (Sanitizer.isActive ? 4 : 1), "\(powers)")
        let pitch = ToneAnalysis.pitch(Array(samples[(first * 1024)...]))
        #expect(abs(pitch.frequency - 1000) <= 50, "\(pitch)")
    }

    @Test func aMissingSavedInputFallsBackWithAWarning() throws {
        let xvfb = try Xvfb(width: 320, height: 240)
        defer { xvfb.stop() }
        let pulse = try PulseAudioDaemon(sinks: [("speakers", 48_000)])
        defer { pulse.stop() }
        let home = try TemporaryDirectory()
        _ = Self.stream(["settings", "set", "audio-input", "unplugged-mic"], home: home, pulse: pulse)
        let run = Self.stream(["broadcast", "--source", "screen", "--display", xvfb.display, "--record",
                               home.file("fallback.flv"), "--quality", "480", "--duration", "1"],
                              home: home, pulse: pulse)
        #expect(run.exitCode == 0, "\(run.error)")
        #expect(run.error.contains("audio input 'unplugged-mic' is not available"), "\(run.error)")
    }

    @Test func aMissingCameraDeviceFailsWithItsPath() throws {
        let home = try TemporaryDirectory()
        let run = Self.stream(["broadcast", "--source", "test", "--test-size", "320x180", "--pip", "on",
                               "--camera", "/dev/video-none", "--record", home.file("none.flv"),
                               "--duration", "1"], home: home, pulse: nil)
        #expect(run.exitCode == 1)
        #expect(run.error.contains("cannot open the camera") && run.error.contains("/dev/video-none"), "\(run.error)")
    }

    /// The recording's left channel as 48 kHz floats.
    private static func decodedAudio(_ file: String, in directory: TemporaryDirectory) throws -> [Float] {
        let raw = directory.file("audio.f32")
        let decode = try Subprocess.run("ffmpeg", ["-v", "error", "-y", "-i", file, "-vn", "-ac", "1", "-ar",
                                                   "48000", "-f", "f32le", raw])
        #expect(decode.status == 0, "\(decode.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}
