import Foundation
import TestSupport
import Testing
@testable import StreamCLI
@testable import StreamCore

@Suite struct SettingsCommandTests {
    private func blob(_ directory: TemporaryConfigHome) -> URL {
        directory.streamDirectory.appendingPathComponent("stream.settings.v1.json")
    }

    private func stored(_ directory: TemporaryConfigHome) throws -> StreamSettings {
        try SettingsStore.file(paths: XDGPaths(environment: directory.environment)).load().settings
    }

    @Test func showPrintsEveryKeyWithDefaults() throws {
        let directory = try TemporaryConfigHome()
        let result = runCLI(["settings", "show"], in: directory)
        #expect(result.exitCode == 0)
        #expect(result.error.isEmpty)
        let lines = result.output.split(separator: "\n").map { $0.split(separator: " ") }
        let table = Dictionary(uniqueKeysWithValues: lines.map { (String($0[0]), String($0[1])) })
        #expect(table == [
            "quality": "720p", "fps": "30", "video-bitrate": "3000", "audio-bitrate": "128", "app-audio": "on",
            "adaptive-bitrate": "on", "pip": "off", "pip-corner": "bottom-right", "pip-scale": "0.25",
            "camera-position": "front", "audio-input": "default", "audio": "both", "protocol": "rtmp",
        ])
        // Showing does not create anything.
        #expect(try directory.streamFiles().isEmpty)
    }

    @Test func showJSONPrintsTheBlob() throws {
        let directory = try TemporaryConfigHome()
        let result = runCLI(["settings", "show", "--json"], in: directory)
        #expect(result.exitCode == 0)
        let settings = try JSONDecoder().decode(StreamSettings.self, from: Data(result.output.utf8))
        #expect(settings == StreamSettings())
    }

    @Test(arguments: [
        ("quality", "1080p", "1080p"), ("quality", "480", "480p"), ("fps", "60", "60"), ("fps", "24", "24"),
        ("video-bitrate", "4500", "4500"), ("video-bitrate", "300", "300"), ("video-bitrate", "20000", "20000"),
        ("audio-bitrate", "160", "160"), ("app-audio", "off", "off"), ("app-audio", "TRUE", "on"),
        ("adaptive-bitrate", "no", "off"), ("pip", "on", "on"), ("pip-corner", "top-left", "top-left"),
        ("pip-corner", "Bottom-Left", "bottom-left"), ("pip-scale", "0.4", "0.4"), ("pip-scale", "10%", "0.1"),
        ("pip-scale", "0.333", "0.333"), ("camera-position", "back", "back"),
        ("audio-input", "BluetoothHFP:DJI-Mic", "BluetoothHFP:DJI-Mic"), ("audio-input", "default", "default"),
    ])
    func setAcceptsValidValuesAndPersistsThem(_ key: String, _ value: String, _ shown: String) throws {
        let directory = try TemporaryConfigHome()
        let result = runCLI(["settings", "set", key, value], in: directory)
        #expect(result.exitCode == 0)
        #expect(result.error.isEmpty)
        #expect(result.output.hasPrefix("\(key) = \(shown)\n"))
        let settingsKey = try #require(SettingsKey(rawValue: key))
        #expect(settingsKey.format(try stored(directory)) == shown)
        let show = runCLI(["settings", "show"], in: directory)
        #expect(show.output.contains(key + String(repeating: " ", count: 18 - key.count) + shown + "\n"))
    }

    @Test(arguments: [
        ("quality", "4k", "480p, 720p, 1080p"), ("quality", "1440p", "480p, 720p, 1080p"),
        ("fps", "45", "24, 30, 60"), ("fps", "thirty", "24, 30, 60"), ("fps", "-1", "24, 30, 60"),
        ("video-bitrate", "299", "300–20000"), ("video-bitrate", "20001", "300–20000"),
        ("video-bitrate", "3M", "300–20000"), ("video-bitrate", "99999999999999999999999", "300–20000"),
        ("audio-bitrate", "16", "32–320"), ("audio-bitrate", "-128", "32–320"),
        ("app-audio", "maybe", "on, off"), ("pip", "", "on, off"),
        ("pip-corner", "center", "top-left, top-right, bottom-left, bottom-right"),
        ("pip-scale", "0.5", "0.10–0.40"), ("pip-scale", "5%", "0.10–0.40"), ("pip-scale", "nan", "0.10–0.40"),
        ("pip-scale", "inf", "0.10–0.40"), ("pip-scale", "0.09", "0.10–0.40"),
        ("camera-position", "side", "front, back"), ("audio-input", "", "stable id"),
        ("audio-input", "bad\u{7}id", "stable id"),
    ])
    func setRefusesInvalidValuesWithExit2AndSavesNothing(_ key: String, _ value: String, _ choices: String) throws {
        let directory = try TemporaryConfigHome()
        #expect(runCLI(["settings", "set", "audio-bitrate", "96"], in: directory).exitCode == 0)
        let before = try Data(contentsOf: blob(directory))

        let result = runCLI(["settings", "set", key, value], in: directory)
        #expect(result.exitCode == 2)
        #expect(result.output.isEmpty)
        #expect(result.error.contains("invalid value"))
        #expect(result.error.contains(key))
        #expect(result.error.contains(choices))
        #expect(try Data(contentsOf: blob(directory)) == before)
    }

    @Test func refusalOnAFreshDirectoryCreatesNoFile() throws {
        let directory = try TemporaryConfigHome()
        let result = runCLI(["settings", "set", "fps", "45"], in: directory)
        #expect(result.exitCode == 2)
        #expect(try directory.streamFiles().isEmpty)
    }

    @Test func unknownKeyListsTheValidKeys() throws {
        let directory = try TemporaryConfigHome()
        let result = runCLI(["settings", "set", "resolution", "720p"], in: directory)
        #expect(result.exitCode == 2)
        #expect(result.error.contains("unknown setting 'resolution'"))
        #expect(result.error.contains("quality, fps, video-bitrate"))
        #expect(try directory.streamFiles().isEmpty)
    }

    @Test(arguments: [["settings", "set"], ["settings", "set", "fps"], ["settings", "set", "fps", "30", "60"]])
    func setNeedsExactlyAKeyAndAValue(_ arguments: [String]) throws {
        let result = runCLI(arguments, in: try TemporaryConfigHome())
        #expect(result.exitCode == 2)
        #expect(result.error.contains("needs a KEY and a VALUE"))
    }

    @Test func changingQualityMovesTheDefaultBitrateAndSaysSo() throws {
        let directory = try TemporaryConfigHome()
        let result = runCLI(["settings", "set", "quality", "1080p"], in: directory)
        #expect(result.output == "quality = 1080p\nvideo-bitrate = 5000 (the default for 1080p30)\n")
        #expect(try stored(directory).videoBitrateKbps == 5000)
        _ = runCLI(["settings", "set", "video-bitrate", "6500"], in: directory)
        let second = runCLI(["settings", "set", "fps", "60"], in: directory)
        #expect(second.output == "fps = 60\n")
        #expect(try stored(directory).videoBitrateKbps == 6500)
    }

    @Test func resetRestoresDefaults() throws {
        let directory = try TemporaryConfigHome()
        _ = runCLI(["settings", "set", "pip", "on"], in: directory)
        let result = runCLI(["settings", "reset"], in: directory)
        #expect(result.exitCode == 0)
        #expect(try stored(directory) == StreamSettings())
    }

    @Test func clampedStoredValuesAreReportedOnStderr() throws {
        let directory = try TemporaryConfigHome()
        try AtomicFile.write(Data(#"{"videoBitrateKbps": 90000, "fps": 50}"#.utf8), to: blob(directory),
                             permissions: 0o600)
        let result = runCLI(["settings", "show"], in: directory)
        #expect(result.exitCode == 0)
        #expect(result.output.contains("video-bitrate     20000"))
        #expect(result.output.contains("fps               60"))
        #expect(result.error.contains("stream: warning: settings: video bitrate 90000 kbps is outside 300–20000"))
        #expect(result.error.contains("fps 50 is not one of 24, 30, 60"))
    }

    @Test func aCorruptBlobIsKeptAsideAndTheUserIsTold() throws {
        let directory = try TemporaryConfigHome()
        try AtomicFile.write(Data("{\"fps\": 30,,,".utf8), to: blob(directory), permissions: 0o600)
        let result = runCLI(["settings", "set", "fps", "24"], in: directory)
        #expect(result.exitCode == 0)
        #expect(result.error.contains("could not be used"))
        let files = try directory.streamFiles()
        #expect(files.count == 2)
        let kept = try #require(files.first { $0.hasPrefix("stream.settings.v1.corrupt-") && $0.hasSuffix(".json") })
        #expect(result.error.contains(kept))
        #expect(try String(contentsOf: directory.streamDirectory.appendingPathComponent(kept), encoding: .utf8)
                == "{\"fps\": 30,,,")
        #expect(try stored(directory).fps == 24)
    }
}
