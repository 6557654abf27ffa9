import AMF
import FLV
import Foundation
import Recording
import TestSupport
import Testing

/// MP4File against real media: ffmpeg makes FLV fixtures, MP4File rewrites their tags as fragmented MP4, and
/// ffprobe/ffmpeg (not our code) read the result; a full disk is a small tmpfs (CI runs as root).
@Suite(.startsPeers) struct MP4FileTests {
    /// The top-level boxes of an ISO BMFF file, in order; fails when the last one runs past the end.
    static func boxes(_ path: String) throws -> [String] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var offset = 0
        var types: [String] = []
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            types.append(String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self))
            guard size >= 8 else { throw Subprocess.Failure(description: "box of size \(size) at \(offset)") }
            offset += size
        }
        guard offset == bytes.count else {
            throw Subprocess.Failure(description: "\(path) ends inside a box (\(offset) of \(bytes.count) bytes)")
        }
        return types
    }

    /// Copies the tags of `source` into `file` (metadata, headers, frames); the first failure is returned.
    static func copy(_ source: String, to file: any RecordingFile, skipping: (FLVTag) -> Bool = { _ in false })
        throws -> RecordingWriteError? {
        let tags = try FLVTags.of(source)
        let metadata = try tags.first { $0.type == .scriptData }
            .flatMap { try AMF0.decodeAll($0.body).last?.objectValue }
        do throws(RecordingWriteError) {
            for tag in tags where !skipping(tag) {
                if tag.type == .scriptData {
                    try file.writeMetadata(metadata ?? [:])
                } else {
                    try file.writeMedia(tag, isFrame: !tag.isSequenceHeader)
                }
            }
            return nil
        } catch {
            return error
        }
    }

    @Test func aStreamRecordedAsMP4DecodesToTheSameFrames() throws {
        let work = try TemporaryDirectory("mp4file")
        // Keyframes every 2 s: two fragments.
        let source = try MediaFixture.makeFLVWithBFrames(in: work, seconds: 3, gop: 60)
        let path = work.file("copy.mp4")
        let file = try MP4File(path: path, creation: .exclusive)
        #expect(try Self.copy(source, to: file) == nil)
        let summary = file.finish()
        #expect(!summary.removed && abs(summary.durationSeconds - 3.0) < 0.1, "\(summary)")
        #expect(try Self.boxes(path) == ["ftyp", "moov", "moof", "mdat", "moof", "mdat"])
        let report = try ProbeReport.probe(path)
        #expect(report.video?.codecName == "h264" && report.video?.frameCount == 90)
        #expect(report.audio?.codecName == "aac" && report.audio?.sampleRate == 48_000)
        #expect(abs((report.durationSeconds ?? 0) - 3.0) < 0.15, "\(String(describing: report.durationSeconds))")
        #expect(try ProbeReport.decodeErrors(path) == "")
        // B-frames and all: the same pictures and sound as the FLV ffmpeg wrote.
        #expect(try ProbeReport.frameHashes(path, stream: "v") == ProbeReport.frameHashes(source, stream: "v"))
        #expect(try ProbeReport.frameHashes(path, stream: "a") == ProbeReport.frameHashes(source, stream: "a"))
    }

    @Test func aFullDiskKeepsTheFileUpToItsLastWholeFragment() throws {
        let work = try TemporaryDirectory("mp4file")
        let source = try MediaFixture.makeNoisyFLV(in: work, seconds: 5, size: "640x360", megabitsPerSecond: 2,
                                                   audio: true)
        let disk = try TmpfsMount(sizeBytes: 4 << 20)
        try disk.fill(leaving: 700_000)
        let path = disk.file("full.mp4")
        let file = try MP4File(path: path, creation: .exclusive)
        let failure = try Self.copy(source, to: file)
        let error = try #require(failure, "5 s at 2 Mbit/s fitted in 700 kB")
        #expect(error.isDiskFull, "\(error)")
        let summary = file.finish()
        let boxes = try Self.boxes(path)
        #expect(boxes.starts(with: ["ftyp", "moov", "moof", "mdat"]) && boxes.count % 2 == 0, "\(boxes)")
        #expect(summary.bytes == (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int))
        #expect(try ProbeReport.decodeErrors(path) == "")
        #expect((try ProbeReport.probe(path).video?.frameCount ?? 0) >= 30)
    }

    /// Without a keyframe for longer than 10 s a fragment is written anyway; audio alone goes every second.
    @Test func whatWaitsInMemoryIsBounded() throws {
        let work = try TemporaryDirectory("mp4file")
        let longGOP = try MediaFixture.makeFLV(in: work, seconds: 12, size: "160x90", gop: 600)
        let video = work.file("long-gop.mp4")
        let file = try MP4File(path: video, creation: .exclusive)
        #expect(try Self.copy(longGOP, to: file) == nil)
        file.finish()
        let videoBoxes = try Self.boxes(video)
        #expect(videoBoxes.filter { $0 == "moof" }.count == 2, "\(videoBoxes)")
        #expect(try ProbeReport.probe(video).video?.frameCount == 360)

        let audio = work.file("audio.mp4")
        let audioFile = try MP4File(path: audio, creation: .exclusive)
        #expect(try Self.copy(longGOP, to: audioFile) { $0.type == .video } == nil)
        audioFile.finish()
        let fragments = try Self.boxes(audio).filter { $0 == "moof" }.count
        #expect((11...13).contains(fragments), "\(fragments) fragments for 12 s of audio")
        #expect(try ProbeReport.probe(audio).audio?.codecName == "aac")
        #expect(try ProbeReport.decodeErrors(audio) == "")
    }

    /// A recording that joins after a keyframe starts at the next one (what comes before cannot be decoded).
    @Test func aFileStartsAtAKeyframe() throws {
        let work = try TemporaryDirectory("mp4file")
        let source = try MediaFixture.makeFLV(in: work, seconds: 3, size: "160x90", gop: 30)
        let path = work.file("late.mp4")
        let file = try MP4File(path: path, creation: .exclusive)
        var seenFrames = 0
        #expect(try Self.copy(source, to: file) { tag in
            guard tag.type == .video, !tag.isSequenceHeader else { return false }
            seenFrames += 1
            return seenFrames <= 10  // the first keyframe and nine frames after it never arrive
        } == nil)
        file.finish()
        #expect(file.skippedLeadingFrames == 20)
        #expect(try ProbeReport.probe(path).video?.frameCount == 60)
        #expect(try ProbeReport.decodeErrors(path) == "")
    }

    @Test func whatMP4CannotHoldIsAClearError() throws {
        let work = try TemporaryDirectory("mp4file")
        let small = try FLVTags.of(try MediaFixture.makeFLV(in: work, seconds: 1, size: "160x90"))
        let large = try FLVTags.of(try MediaFixture.makeFLV(in: work, seconds: 1, size: "320x180"))
        let file = try MP4File(path: work.file("changed.mp4"), creation: .exclusive)
        for tag in small where tag.type == .video { try file.writeMedia(tag, isFrame: !tag.isSequenceHeader) }
        let header = try #require(large.first { $0.type == .video && $0.isSequenceHeader })
        do {
            try file.writeMedia(header, isFrame: false)
            Issue.record("a new picture size went into the same MP4 file")
        } catch {
            #expect(error.reason == "the stream's codec settings changed")
        }
        file.finish()

        let opus = try MP4File(path: work.file("opus.mp4"), creation: .exclusive)
        let head = FLVOpusAudio.identificationHeader(channels: 2, preSkip: 312)
        do {
            try opus.writeMedia(FLVTag(opus: .sequenceStart(head), timestamp: 0), isFrame: false)
            try opus.writeMedia(FLVTag(opus: .packet([0xFC, 0xFF, 0xFE]), timestamp: 0), isFrame: true)
            Issue.record("Opus went into an MP4 file")
        } catch {
            #expect(error.reason.hasPrefix("this stream cannot be recorded as MP4"), "\(error)")
        }
        #expect(opus.finish().removed)
    }
}
