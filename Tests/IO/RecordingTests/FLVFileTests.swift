import AMF
import FLV
import Recording
import Foundation
import TestSupport
import Testing

/// FLVFile against real files: ffmpeg makes the media, FLVFile rewrites it tag by tag, ffprobe and ffmpeg read the
/// result; a full disk is a small tmpfs that fills up (CI runs as root and can mount one).
@Suite struct FLVFileTests {
    /// Copies the media tags of `tags` to `file`, with a metadata tag first; stops at the first failed write.
    @discardableResult
    static func copy(_ tags: [FLVTag], to file: FLVFile) -> RecordingWriteError? {
        do throws(RecordingWriteError) {
            try file.writeMetadata(["width": .number(640), "height": .number(360), "duration": .number(99)])
            for tag in tags where tag.type != .scriptData {
                try file.writeMedia(tag, isFrame: !tag.isSequenceHeader)
            }
            return nil
        } catch {
            return error
        }
    }

    static func metadata(of path: String) throws -> AMF0Object? {
        try FLVTags.of(path).first { $0.type == .scriptData }.flatMap { try AMF0.decodeAll($0.body).last?.objectValue }
    }

    @Test func aCopiedFileHasItsRealDurationAndSizeAndPlays() throws {
        let work = try TemporaryDirectory("flvfile")
        let source = try MediaFixture.makeFLV(in: work, seconds: 3)
        let path = work.file("copy.flv")
        let file = try FLVFile(path: path, creation: .exclusive)
        let tags = try FLVTags.of(source)
        #expect(Self.copy(tags, to: file) == nil)
        let summary = file.finish()

        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(summary.bytes == size && !summary.removed)
        // 90 frames at 30 fps: the last at 2.967 s, plus one frame's 33 ms.
        #expect(abs(summary.durationSeconds - 3.0) < 0.05, "\(summary)")
        let properties = try #require(try Self.metadata(of: path))
        #expect(properties["duration"]?.numberValue == summary.durationSeconds)
        #expect(properties["filesize"]?.numberValue == Double(summary.bytes))
        #expect(properties["width"]?.numberValue == 640, "the caller's properties follow duration and filesize")
        #expect(properties.properties.first?.key == "duration")
        let report = try ProbeReport.probe(path)
        #expect(report.video?.frameCount == 90)
        let probed = report.durationSeconds ?? 0
        #expect(abs(probed - 3.0) < 0.1, "ffprobe: \(probed) s")
        #expect(try ProbeReport.decodeErrors(path) == "")
        // Finishing again changes nothing.
        #expect(file.finish() == summary)
    }

    @Test func anExclusiveFileIsNeverOverwrittenAndATruncatedOneIsReplaced() throws {
        let work = try TemporaryDirectory("flvfile")
        let path = work.file("taken.flv")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: RecordingWriteError.self) { try FLVFile(path: path, creation: .exclusive) }
        do {
            _ = try FLVFile(path: path, creation: .exclusive)
        } catch {
            #expect(error.code == EEXIST)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
        let file = try FLVFile(path: path, creation: .truncate)
        #expect(file.size == FLVFileHeader.size + 4, "the FLV header and the first previous-tag-size")
    }

    @Test func aFileWithoutAFrameIsRemovedAtTheEnd() throws {
        let work = try TemporaryDirectory("flvfile")
        let path = work.file("empty.flv")
        let file = try FLVFile(path: path, creation: .exclusive)
        try file.writeMetadata([:])
        try file.writeMedia(FLVTag(type: .video, timestamp: 0, body: [0x17, 0, 0, 0, 0]), isFrame: false)
        let summary = file.finish()
        #expect(summary.removed && summary.bytes == 0)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aMissingDirectoryIsSaidInPlainWords() throws {
        let work = try TemporaryDirectory("flvfile")
        do {
            _ = try FLVFile(path: work.file("nowhere/file.flv"), creation: .truncate)
            Issue.record("created a file in a directory that does not exist")
        } catch {
            #expect(error.description == "cannot create \(work.file("nowhere/file.flv")): the directory does not exist")
        }
    }

    @Test func aFullDiskCutsTheFileBackToItsLastWholeTag() throws {
        let work = try TemporaryDirectory("flvfile")
        let source = try MediaFixture.makeNoisyFLV(in: work, seconds: 4, size: "640x360", megabitsPerSecond: 2)
        let disk = try TmpfsMount(sizeBytes: 4 << 20)
        try disk.fill(leaving: 300_000)
        let path = disk.file("full.flv")
        let file = try FLVFile(path: path, creation: .exclusive)
        let tags = try FLVTags.of(source)
        let failure = Self.copy(tags, to: file)
        let error = try #require(failure, "the copy fitted on a full disk")
        #expect(error.isDiskFull && error.reason == "the disk is full", "\(error)")
        let summary = file.finish()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(summary.bytes == size && size > 100_000 && size <= 300_000, "\(summary), \(size) bytes on disk")
        // Whole tags only (FLVReader ends on a tag boundary), metadata patched, and ffmpeg decodes it cleanly.
        let kept = try FLVTags.of(path)
        #expect(kept.count > 3)
        #expect(try Self.metadata(of: path)?["filesize"]?.numberValue == Double(size))
        #expect(try ProbeReport.decodeErrors(path) == "")
        #expect((try ProbeReport.probe(path).video?.frameCount ?? 0) > 2)
    }

    @Test func aFileThatCannotTakeItsHeaderIsRemoved() throws {
        let disk = try TmpfsMount(sizeBytes: 1 << 20)
        try disk.fill(leaving: 0)
        let path = disk.file("none.flv")
        do {
            _ = try FLVFile(path: path, creation: .exclusive)
            Issue.record("wrote a header to a full disk")
        } catch {
            #expect(error.isDiskFull, "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: path), "a full disk left an empty file")
    }
}
