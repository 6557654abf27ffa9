import Foundation
import TestSupport
import Testing
@testable import StreamCore

@Suite struct SettingsStoreTests {
    /// 2026-11-29 18:15:00 UTC, so that set-aside names are predictable.
    static let fixedDate = Date(timeIntervalSince1970: 1_795_976_100)

    private func makeStore(_ directory: TemporaryConfigHome) throws -> SettingsStore {
        let paths = try XDGPaths(environment: directory.environment)
        return SettingsStore(storage: FileBlobStorage(directory: paths.configDirectory), now: { Self.fixedDate })
    }

    private func blobURL(_ directory: TemporaryConfigHome) -> URL {
        directory.streamDirectory.appendingPathComponent("stream.settings.v1.json")
    }

    @Test func nothingStoredGivesDefaults() throws {
        let directory = try TemporaryConfigHome()
        let result = try makeStore(directory).load()
        #expect(result.settings == StreamSettings())
        #expect(result.warnings.isEmpty)
        #expect(!result.wasStored)
        #expect(try directory.streamFiles().isEmpty)
    }

    @Test func savesOneBlobUnderTheSettingsKeyAndLoadsItBack() throws {
        let directory = try TemporaryConfigHome()
        let store = try makeStore(directory)
        var settings = StreamSettings.defaults(for: .p1080, fps: 60)
        settings.pipEnabled = true
        settings.audioInputID = "BluetoothHFP-DJI"
        #expect(try store.save(settings).isEmpty)
        #expect(try directory.streamFiles() == ["stream.settings.v1.json"])
        #expect(store.key == "stream.settings.v1")
        let loaded = store.load()
        #expect(loaded.settings == settings)
        #expect(loaded.wasStored)
        #expect(permissions(of: blobURL(directory).path) == 0o600)
        #expect(permissions(of: directory.streamDirectory.path) == 0o700)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: blobURL(directory)))
        #expect((object as? [String: Any])?["quality"] as? String == "1080p")
    }

    @Test func savingClampsAndWarns() throws {
        let directory = try TemporaryConfigHome()
        let store = try makeStore(directory)
        var settings = StreamSettings()
        settings.pipScale = 0.05
        let warnings = try store.save(settings)
        #expect(warnings.map(\.key) == ["pipScale"])
        #expect(store.load().settings.pipScale == 0.10)
    }

    @Test func storedOutOfRangeValuesAreClampedOnLoadWithWarnings() throws {
        let directory = try TemporaryConfigHome()
        let store = try makeStore(directory)
        try AtomicFile.write(Data(#"{"videoBitrateKbps": 50, "fps": 61, "extra": 1}"#.utf8), to: blobURL(directory),
                             permissions: 0o600)
        let result = store.load()
        #expect(result.settings.videoBitrateKbps == 300)
        #expect(result.settings.fps == 60)
        #expect(result.warnings.count == 2)
        #expect(result.setAsideLocation == nil)
    }

    @Test(arguments: [
        "this is not json",
        "[1, 2, 3]",
        "\"a string\"",
        String(repeating: "{\"a\":", count: 5000),
        "",
    ])
    func corruptBlobIsKeptAsideAndNeverOverwritten(_ contents: String) throws {
        let directory = try TemporaryConfigHome()
        let store = try makeStore(directory)
        try AtomicFile.write(Data(contents.utf8), to: blobURL(directory), permissions: 0o600)

        let result = store.load()
        #expect(result.settings == StreamSettings())
        let kept = directory.streamDirectory.appendingPathComponent("stream.settings.v1.corrupt-20261129T181500Z.json")
        #expect(result.setAsideLocation == kept.path)
        #expect(try Data(contentsOf: kept) == Data(contents.utf8))
        let warning = try #require(result.warnings.first)
        #expect(warning.key == "*")
        #expect(warning.message.contains(kept.path))

        try store.save(StreamSettings.defaults(for: .p480, fps: 24))
        #expect(try Data(contentsOf: kept) == Data(contents.utf8))
        #expect(store.load().settings.quality == .p480)
    }

    @Test func hugeBlobIsKeptAsideWithoutBeingDecoded() throws {
        let directory = try TemporaryConfigHome()
        let store = try makeStore(directory)
        let huge = Data(("{\"fps\": 30, \"pad\": \"" + String(repeating: "x", count: 1_000_000) + "\"}").utf8)
        try AtomicFile.write(huge, to: blobURL(directory), permissions: 0o600)
        let result = store.load()
        #expect(result.settings == StreamSettings())
        #expect(result.warnings.first?.message.contains("bytes") == true)
        let kept = try #require(result.setAsideLocation)
        #expect(try Data(contentsOf: URL(fileURLWithPath: kept)) == huge)
    }

    @Test func saveSetsAsideACorruptBlobWrittenAfterLoad() throws {
        let directory = try TemporaryConfigHome()
        let store = try makeStore(directory)
        try store.save(StreamSettings())
        try AtomicFile.write(Data("garbage".utf8), to: blobURL(directory), permissions: 0o600)
        let warnings = try store.save(StreamSettings())
        #expect(warnings.count == 1)
        #expect(try directory.streamFiles() == [
            "stream.settings.v1.corrupt-20261129T181500Z.json", "stream.settings.v1.json",
        ])
    }

    @Test func aSecondCorruptionInTheSameSecondGetsItsOwnName() throws {
        let directory = try TemporaryConfigHome()
        let store = try makeStore(directory)
        try AtomicFile.write(Data("one".utf8), to: blobURL(directory), permissions: 0o600)
        _ = store.load()
        try AtomicFile.write(Data("two".utf8), to: blobURL(directory), permissions: 0o600)
        _ = store.load()
        let dir = directory.streamDirectory
        #expect(try String(contentsOf: dir.appendingPathComponent("stream.settings.v1.corrupt-20261129T181500Z.json"),
                           encoding: .utf8) == "one")
        #expect(try String(contentsOf: dir.appendingPathComponent("stream.settings.v1.corrupt-20261129T181500Z-2.json"),
                           encoding: .utf8) == "two")
    }

    @Test func resetStoresDefaults() throws {
        let directory = try TemporaryConfigHome()
        let store = try makeStore(directory)
        try store.save(StreamSettings.defaults(for: .p1080, fps: 60))
        try store.reset()
        #expect(store.load().settings == StreamSettings())
    }

    @Test func writesLeaveNoTemporaryFilesBehind() throws {
        let directory = try TemporaryConfigHome()
        let store = try makeStore(directory)
        for fps in [24, 30, 60, 30] {
            try store.save(StreamSettings.defaults(for: .p720, fps: fps))
        }
        #expect(try directory.streamFiles() == ["stream.settings.v1.json"])
    }

    @Test func aDirectoryInPlaceOfTheBlobWarnsOnLoadAndIsAnIOErrorOnSave() throws {
        let directory = try TemporaryConfigHome()
        try FileManager.default.createDirectory(at: blobURL(directory), withIntermediateDirectories: true)
        let store = try makeStore(directory)
        let loaded = store.load()
        #expect(loaded.settings == StreamSettings())
        #expect(loaded.warnings.count == 1)
        #expect(loaded.warnings.first?.message.contains("cannot be read") == true, "\(loaded.warnings)")
        let error = try #require(throws: StreamCoreError.self) { try store.save(StreamSettings()) }
        #expect(error.kind == .io)
        #expect(error.message.hasPrefix("cannot save the settings"), "\(error)")
    }

    @Test func stampIsUTC() {
        #expect(SettingsStore.stamp(Self.fixedDate) == "20261129T181500Z")
    }
}
