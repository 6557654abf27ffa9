import Foundation
import TestSupport
import Testing
@testable import StreamCore

@Suite struct FileCredentialStoreTests {
    static let key = "live_9f8e7d6c5b4a_SECRET"

    private func credentials() throws -> StreamCredentials {
        StreamCredentials(url: try IngestURL(parsing: "rtmps://live.restream.io/live"), streamKey: Self.key)
    }

    @Test func savesWithMode0600AndLoadsBack() throws {
        let directory = try TemporaryConfigHome()
        let store = FileCredentialStore(paths: try XDGPaths(environment: directory.environment))
        #expect(try store.load() == nil)
        try store.save(try credentials())
        #expect(permissions(of: store.fileURL.path) == 0o600)
        #expect(try store.load() == (try credentials()))
        #expect(try directory.streamFiles() == ["credentials.json"])
        #expect(!store.location.contains(Self.key))
    }

    @Test func replacingKeepsMode0600EvenWithAPermissiveUmask() throws {
        let directory = try TemporaryConfigHome()
        let store = FileCredentialStore(paths: try XDGPaths(environment: directory.environment))
        let previous = umask(0)
        defer { umask(previous) }
        try store.save(try credentials())
        try store.save(StreamCredentials(url: try IngestURL(parsing: "rtmp://10.0.0.1/live"), streamKey: "k2"))
        #expect(permissions(of: store.fileURL.path) == 0o600)
        #expect(try store.load()?.streamKey == "k2")
    }

    @Test func clearRemovesTheFileAndIsIdempotent() throws {
        let directory = try TemporaryConfigHome()
        let store = FileCredentialStore(paths: try XDGPaths(environment: directory.environment))
        try store.save(try credentials())
        try store.clear()
        try store.clear()
        #expect(try store.load() == nil)
        #expect(try directory.streamFiles().isEmpty)
    }

    @Test func refusesAFileOtherUsersCanRead() throws {
        let directory = try TemporaryConfigHome()
        let store = FileCredentialStore(paths: try XDGPaths(environment: directory.environment))
        try store.save(try credentials())
        #expect(chmod(store.fileURL.path, 0o644) == 0)
        let error = try #require(throws: StreamCoreError.self) { try store.load() }
        #expect(error.kind == .insecureCredentialsFile)
        #expect(error.message.contains("644"))
        #expect(!error.message.contains(Self.key))
    }

    @Test(arguments: ["", "{}", "[]", #"{"url": "ftp://x/y", "streamKey": "SECRETVALUE"}"#,
                      #"{"url": 1, "streamKey": "SECRETVALUE"}"#, "SECRETVALUE"])
    func refusesCorruptFilesWithoutEchoingThem(_ contents: String) throws {
        let directory = try TemporaryConfigHome()
        let store = FileCredentialStore(paths: try XDGPaths(environment: directory.environment))
        try AtomicFile.write(Data(contents.utf8), to: store.fileURL, permissions: 0o600)
        let error = try #require(throws: StreamCoreError.self) { try store.load() }
        #expect(error.kind == .corruptCredentials)
        #expect(!error.message.contains("SECRETVALUE"))
    }

    @Test func credentialsNeverGoIntoTheSettingsBlob() throws {
        let directory = try TemporaryConfigHome()
        let paths = try XDGPaths(environment: directory.environment)
        let credentialStore = FileCredentialStore(paths: paths)
        let settingsStore = SettingsStore.file(paths: paths)
        try credentialStore.save(try credentials())
        var settings = StreamSettings()
        settings.audioInputID = "mic"
        try settingsStore.save(settings)
        _ = settingsStore.load()
        let blob = try Data(contentsOf: paths.file("stream.settings.v1.json"))
        let text = String(decoding: blob, as: UTF8.self)
        #expect(!text.contains(Self.key))
        #expect(!text.contains("restream"))
        #expect(!text.contains("://"))
        let object = try #require(try JSONSerialization.jsonObject(with: blob) as? [String: Any])
        #expect(object["streamKey"] == nil && object["url"] == nil)
        #expect(Set(object.keys).isSubset(of: StreamSettings.CodingKeys.allCases.map(\.stringValue)))
    }

    @Test func descriptionsAndMirrorsMaskTheKey() throws {
        let credentials = try credentials()
        #expect(credentials.description == "rtmps://live.restream.io/live/••••")
        #expect(!credentials.debugDescription.contains(Self.key))
        #expect(!String(describing: credentials).contains(Self.key))
        #expect(!String(reflecting: credentials).contains(Self.key))
        var dumped = ""
        dump(credentials, to: &dumped)
        #expect(!dumped.contains(Self.key))
        #expect(!"\(credentials)".contains(Self.key))
    }

    @Test(arguments: ["", "has space", "tab\there", "new\nline", String(repeating: "k", count: 1025)])
    func refusesUnusableKeys(_ key: String) {
        #expect(throws: CredentialsError.self) { try StreamCredentials.validateStreamKey(key) }
    }

    /// A WHIP endpoint takes a bearer token, which may be a JWT well over 1 KB; the error says "token".
    @Test func aWHIPTokenMayBeLongerThanAStreamKey() throws {
        let jwt = "eyJhbGciOiJIUzI1NiJ9." + String(repeating: "a", count: 3000) + ".sig"
        try StreamCredentials.validateStreamKey(jwt, for: .https)
        do {
            try StreamCredentials.validateStreamKey(jwt, for: .rtmps)
            Issue.record("a 3 KB RTMP stream key was accepted")
        } catch {
            #expect("\(error)" == "the stream key is longer than 1024 bytes")
        }
        do {
            try StreamCredentials.validateStreamKey(String(repeating: "t", count: 6 * 1024 + 1), for: .http)
            Issue.record("a 6 KB + 1 token was accepted")
        } catch {
            #expect("\(error)" == "the bearer token is longer than 6144 bytes")
        }
    }

    @Test func acceptsTypicalKeys() throws {
        try StreamCredentials.validateStreamKey("re_1234567_abcdef0123456789")
        try StreamCredentials.validateStreamKey("live_123456789_AbCdEfGh?bandwidthtest=true")
    }
}
