import Capture
import Foundation
import Locking
import Media
import TestSupport
import Testing

/// Real PulseAudio: a private daemon, null sinks playing known tones, their monitors captured.
@Suite(.startsPeers) struct PulseAudioCaptureTests {
    /// Collects delivered buffers until enough sample frames arrived.
    final class Collector: Sendable {
        private let state = Locked<(samples: [Float], buffers: [PCMBuffer])>(([], []))

        func add(_ buffer: PCMBuffer) {
            let samples = buffer.floatSamples()
            // Skip the silence before the player's first samples reach the sink.
            state.withLock { state in
                if state.samples.isEmpty && ToneAnalysis.rms(samples) < 0.05 { return }
                state.samples += samples
                if state.buffers.count < 4 { state.buffers.append(buffer) }
            }
        }

        var samples: [Float] { state.withLock { $0.samples } }
        var firstBuffers: [PCMBuffer] { state.withLock { $0.buffers } }

        /// Waits until `frames` stereo sample frames of sound were collected.
        func wait(frames: Int, timeout: TimeInterval = 8) -> [Float] {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                let samples = samples
                if samples.count >= frames * 2 { return Array(samples.prefix(frames * 2)) }
                usleep(20_000)
            }
            return samples
        }
    }

    /// The rate `pactl list sources short` gives for `source` ("… float32le 2ch 44100Hz …").
    static func pactlSampleRate(of source: String, server: String) throws -> Int? {
        let result = try Subprocess.run("pactl", ["--server", server, "list", "sources", "short"])
        guard let line = result.stdout.split(separator: "\n").first(where: { $0.contains("\t\(source)\t") }),
              let field = line.split(whereSeparator: { $0 == "\t" || $0 == " " }).first(where: { $0.hasSuffix("Hz") })
        else { return nil }
        return Int(field.dropLast(2))
    }

    @Test func listsMonitorsAndCapturesATone() throws {
        let daemon = try PulseAudioDaemon(sinks: [("speakers", 44_100), ("other", 48_000)])
        defer { daemon.stop() }
        try daemon.playTone(frequency: 440, into: "speakers")

        // PulseAudio may move an idle 44.1 kHz sink to its alternate rate (48 kHz) when paplay's 48 kHz stream
        // connects, so the rate is checked against what pactl reports at the same moment, once the two agree.
        var list = try PulseAudioInputLister.list(server: daemon.server)
        var reportedRate: Int?
        for _ in 0..<40 {
            list = try PulseAudioInputLister.list(server: daemon.server)
            reportedRate = try Self.pactlSampleRate(of: "speakers.monitor", server: daemon.server)
            if list.inputs.first(where: { $0.id == "speakers.monitor" })?.sampleRate == reportedRate { break }
            usleep(100_000)
        }
        let monitor = try #require(list.inputs.first { $0.id == "speakers.monitor" })
        #expect(monitor.isMonitor)
        #expect(!monitor.isBluetooth)
        #expect(monitor.sampleRate == reportedRate)
        #expect([44_100, 48_000].contains(monitor.sampleRate))
        #expect(monitor.channels == 2)
        #expect(monitor.name.contains("Monitor"))
        #expect(list.inputs.contains { $0.id == "other.monitor" })
        #expect(list.systemAudioID == "speakers.monitor")
        #expect(list.defaultInput?.id == "speakers.monitor")

        let collector = Collector()
        let started = Date()
        let source = try PulseAudioSource(sourceID: monitor.id, options: .init(server: daemon.server)) {
            collector.add($0)
        }
        let samples = collector.wait(frames: 24_000)
        print("captured 0.5 s of tone after \(String(format: "%.2f", Date().timeIntervalSince(started))) s")
        source.stop()
        try #require(samples.count == 48_000, "captured \(samples.count / 2) sample frames of sound")
        let left = ToneAnalysis.left(samples)
        // The pitch, from the median crossing interval: a wrong rate anywhere (the 44.1 kHz monitor delivered as 48 kHz
        // would be 404 Hz) moves it; a gap the player left in the sink (twice in whole-suite runs, the count of
        // crossings over the window read 406 and 1060 Hz) does not, and the crossings say how steady the tone was.
        let pitch = ToneAnalysis.pitch(left)
        #expect(abs(pitch.frequency - 440) < 22, "\(pitch); \(source.statistics)")
        let tone = ToneAnalysis.power(at: 440, in: left)
        #expect(tone > 20 * ToneAnalysis.power(at: 462, in: left))
        #expect(tone > 20 * ToneAnalysis.power(at: 1000, in: left))

        let buffers = collector.firstBuffers
        #expect(buffers.allSatisfy { $0.format == PulseAudioSource.format && $0.frameCount == 960 })
        if buffers.count >= 2 {
            #expect(buffers[1].pts - buffers[0].pts == 20_000_000)
        }
        #expect(source.statistics.delivered >= 25)
        #expect(source.statistics.droppedFrames == 0)
    }

    @Test func missingSavedInputFallsBackToTheDefaultWithAWarning() throws {
        let daemon = try PulseAudioDaemon(sinks: [("desk", 48_000)])
        defer { daemon.stop() }
        try daemon.playTone(frequency: 1000, into: "desk")
        let list = try PulseAudioInputLister.list(server: daemon.server)
        let plan = try AudioCapturePlan.make(savedInputID: "alsa_input.usb-unplugged", includeAppAudio: true,
                                             inputs: list)
        #expect(plan.microphone.id == "desk.monitor")
        #expect(plan.warning == "audio input 'alsa_input.usb-unplugged' is not available; using the default input "
                    + "'\(plan.microphone.name)'")
        // The default input is the system-audio monitor itself, so it is not mixed in twice.
        #expect(plan.systemAudioID == nil)

        let collector = Collector()
        let capture = try AudioCapture(plan: plan, options: .init(server: daemon.server, framesPerBuffer: 1024)) {
            collector.add($0)
        }
        // A second of tone.
        let left = ToneAnalysis.left(collector.wait(frames: 48_000))
        capture.stop()
        try #require(left.count == 48_000)
        let pitch = ToneAnalysis.pitch(left)
        #expect(abs(pitch.frequency - 1000) < 50, "\(pitch)")
    }

    @Test func mixesTheMicrophoneWithTheSystemAudio() throws {
        let daemon = try PulseAudioDaemon(sinks: [("speakers", 48_000), ("mic", 44_100)])
        defer { daemon.stop() }
        try daemon.playTone(frequency: 440, into: "speakers")
        try daemon.playTone(frequency: 1000, into: "mic")
        let list = try PulseAudioInputLister.list(server: daemon.server)
        let plan = try AudioCapturePlan.make(savedInputID: "mic.monitor", includeAppAudio: true, inputs: list)
        #expect(plan.microphone.id == "mic.monitor")
        #expect(plan.systemAudioID == "speakers.monitor")
        #expect(plan.warning == nil)

        let collector = Collector()
        let capture = try AudioCapture(plan: plan, options: .init(server: daemon.server, framesPerBuffer: 1024)) {
            collector.add($0)
        }
        // Let both tones reach the mixer before measuring: both inputs delivering (one can connect later than the
        // other on a loaded machine, and the mixer pads it with silence meanwhile: once the window had no 1000 Hz).
        let deadline = Date().addingTimeInterval(8)
        while capture.sourceStatistics.contains(where: { $0.delivered < 4 }) && Date() < deadline { usleep(20_000) }
        let before = collector.samples.count / 2
        let mixed = ToneAnalysis.left(Array(collector.wait(frames: before + 28_800).suffix(24_000 * 2)))
        capture.stop()
        try #require(mixed.count == 24_000)
        let at440 = ToneAnalysis.power(at: 440, in: mixed)
        let at1000 = ToneAnalysis.power(at: 1000, in: mixed)
        let between = ToneAnalysis.power(at: 700, in: mixed)
        #expect(at440 > 20 * between, "440 Hz: \(at440), 700 Hz: \(between)")
        #expect(at1000 > 20 * between, "1000 Hz: \(at1000), 700 Hz: \(between)")
        #expect(mixed.allSatisfy { abs($0) < 1 })
        #expect(capture.sourceStatistics.count == 2)
    }

    @Test func unknownSourceAndUnreachableServerHaveClearErrors() throws {
        let daemon = try PulseAudioDaemon(sinks: [("speakers", 48_000)])
        defer { daemon.stop() }
        let unknown = #expect(throws: CaptureError.self) {
            try PulseAudioSource(sourceID: "no-such-source", options: .init(server: daemon.server)) { _ in }
        }
        #expect(unknown?.message.hasPrefix("audio input 'no-such-source' cannot be captured") == true)
        let unreachable = #expect(throws: CaptureError.self) {
            try PulseAudioInputLister.list(server: "unix:\(daemon.directory.file("absent"))")
        }
        #expect(unreachable?.message.hasPrefix("cannot connect to unix:") == true)
    }
}
