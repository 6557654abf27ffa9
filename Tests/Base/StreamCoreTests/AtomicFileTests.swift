import Foundation
import TestSupport
import Testing
@testable import StreamCore

@Suite struct AtomicFileTests {
    @Test func createsMissingDirectoriesWithMode0700() throws {
        let directory = try TemporaryConfigHome()
        let file = directory.url.appendingPathComponent("a/b/c.json")
        try AtomicFile.write(Data("x".utf8), to: file, permissions: 0o600)
        #expect(permissions(of: directory.url.appendingPathComponent("a/b").path) == 0o700)
        #expect(permissions(of: file.path) == 0o600)
        #expect(try AtomicFile.read(file, maximumSize: 10) == .contents(Data("x".utf8), permissions: 0o600))
    }

    @Test func readReportsMissingAndTooLarge() throws {
        let directory = try TemporaryConfigHome()
        let file = directory.url.appendingPathComponent("f")
        #expect(try AtomicFile.read(file, maximumSize: 4) == .missing)
        try AtomicFile.write(Data("12345".utf8), to: file, permissions: 0o600)
        #expect(try AtomicFile.read(file, maximumSize: 4) == .tooLarge(byteCount: 5))
        #expect(try AtomicFile.read(file, maximumSize: 5) == .contents(Data("12345".utf8), permissions: 0o600))
    }

    @Test func replacesAnExistingFileWhole() throws {
        let directory = try TemporaryConfigHome()
        let file = directory.url.appendingPathComponent("f")
        try AtomicFile.write(Data(repeating: 0x41, count: 1000), to: file, permissions: 0o600)
        try AtomicFile.write(Data("short".utf8), to: file, permissions: 0o600)
        #expect(try Data(contentsOf: file) == Data("short".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["f"])
    }

    @Test func failsCleanlyWhenTheParentIsAFile() throws {
        let directory = try TemporaryConfigHome()
        let blocker = directory.url.appendingPathComponent("blocker")
        try AtomicFile.write(Data("x".utf8), to: blocker, permissions: 0o600)
        let error = try #require(throws: StreamCoreError.self) {
            try AtomicFile.write(Data("y".utf8), to: blocker.appendingPathComponent("f"), permissions: 0o600)
        }
        #expect(error.kind == .io)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["blocker"])
    }

    @Test func removeIgnoresAMissingFile() throws {
        let directory = try TemporaryConfigHome()
        try AtomicFile.remove(directory.url.appendingPathComponent("absent"))
    }
}
