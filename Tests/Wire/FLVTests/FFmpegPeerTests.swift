import Foundation
import TestSupport
import Testing
@testable import FLV

/// FLV files made by ffmpeg (libx264 + AAC) read with `FLVReader`, and files we write checked by ffprobe.
@Suite(.serialized, .startsPeers) struct FFmpegPeerTests {
    @Test func readsAnFFmpegFileAndWritesItBack() throws {
        let directory = try TemporaryDirectory("flv-tests")
        let source = URL(fileURLWithPath: directory.file("ffmpeg.flv"))
        let made = try Subprocess.run("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
            "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000",
            "-t", "2", "-c:v", "libx264", "-g", "30", "-c:a", "aac", "-f", "flv", source.path,
        ])
        try #require(made.status == 0, "ffmpeg failed: \(made.stderr)")
        let original = [UInt8](try Data(contentsOf: source))

        var reader = FLVReader()
        var tags: [FLVTag] = []
        for start in stride(from: 0, to: original.count, by: 4096) {
            reader.append(original[start..<min(start + 4096, original.count)])
            while let tag = try reader.next() {
                tags.append(tag)
            }
        }
        #expect(reader.bufferedByteCount == 0)
        #expect(reader.header == FLVFileHeader(hasAudio: true, hasVideo: true))

        // Script data: onMetaData describing the stream.
        let script = try #require(tags.first { $0.type == .scriptData })
        let metadata = try FLVMetadata(parsing: script.body)
        #expect(metadata.width == 320)
        #expect(metadata.height == 240)
        #expect(metadata.frameRate == 30)
        #expect(metadata.videoCodecID == FLVMetadata.avcVideoCodecID)
        #expect(metadata.audioCodecID == FLVMetadata.aacAudioCodecID)
        #expect(metadata.audioSampleRate == 48000)

        // Video: a sequence header first, then frames whose NAL units all split.
        let video = try tags.filter { $0.type == .video }.map { try FLVVideoTagBody(parsing: $0.body) }
        let header = try #require(video.first)
        #expect(header.packetType == .sequenceHeader)
        let configuration = try AVCDecoderConfigurationRecord(parsing: header.data)
        let sps = try #require(configuration.sequenceParameterSets.first)
        #expect(H264NALUnitType(of: sps) == .sps)
        #expect(configuration.profileIndication == sps[1])
        #expect(configuration.levelIndication == sps[3])
        #expect(configuration.nalUnitLengthSize == 4)
        let frames = video.filter { $0.packetType == .nalu }
        #expect(frames.count == 60)
        for frame in frames {
            let units = try AnnexB.splitLengthPrefixed(frame.data, lengthSize: configuration.nalUnitLengthSize)
            let types = units.compactMap { H264NALUnitType(of: $0) }
            #expect(types.contains { $0.isSlice })
            #expect(frame.isKeyFrame == types.contains(.idrSlice))
            // Annex B and back gives the same payload.
            #expect(AnnexB.lengthPrefixed(try AnnexB.fromLengthPrefixed(frame.data)) == frame.data)
        }
        #expect(frames.filter(\.isKeyFrame).count == 2)  // -g 30 over 60 frames
        #expect(frames.contains { $0.compositionTime > 0 })  // x264's B-frames reorder

        // Audio: a sequence header saying 48 kHz AAC-LC, then raw frames.
        let audio = try tags.filter { $0.type == .audio }.map { try FLVAudioTagBody(parsing: $0.body) }
        let audioHeader = try #require(audio.first)
        #expect(audioHeader.packetType == .sequenceHeader)
        let config = try AudioSpecificConfig(parsing: audioHeader.data)
        #expect(config.sampleRate == 48000)
        #expect(config.objectType == AudioSpecificConfig.aacLowComplexity)
        #expect(audio.dropFirst().allSatisfy { $0.packetType == .raw })

        // Timestamps never go back within a track.
        for type in [FLVTagType.video, .audio] {
            let times = tags.filter { $0.type == type }.map(\.timestamp)
            #expect(times == times.sorted(), "\(type) timestamps")
        }

        // Writing the tags back reproduces ffmpeg's file, and ffprobe decodes every frame of it.
        var writer = FLVWriter(hasAudio: true, hasVideo: true)
        var rewritten = writer.encodeHeader()
        for tag in tags {
            rewritten += try writer.encode(tag)
        }
        #expect(rewritten == original)
        let copy = directory.file("rewritten.flv")
        try Data(rewritten).write(to: URL(fileURLWithPath: copy))
        #expect(try ProbeReport.probe(copy).video?.frameCount == 60)
        let errors = try ProbeReport.decodeErrors(copy)
        #expect(errors.isEmpty, "ffmpeg: \(errors)")
    }

    /// Raw x264 output (Annex B, four slices per frame, access unit delimiters) turned into FLV by this module.
    @Test func packagesMultiSliceAnnexBIntoAPlayableFile() throws {
        let directory = try TemporaryDirectory("flv-tests")
        let raw = URL(fileURLWithPath: directory.file("x264.h264"))
        let made = try Subprocess.run("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "30",
            "-c:v", "libx264", "-g", "15", "-bf", "0", "-x264-params", "slices=4:aud=1", "-f", "h264", raw.path,
        ])
        try #require(made.status == 0, "ffmpeg failed: \(made.stderr)")
        let stream = [UInt8](try Data(contentsOf: raw))

        // Access units start at each delimiter.
        var accessUnits: [[ArraySlice<UInt8>]] = []
        for unit in AnnexB.split(stream) {
            if H264NALUnitType(of: unit) == .accessUnitDelimiter {
                accessUnits.append([])
            } else if !accessUnits.isEmpty {
                accessUnits[accessUnits.count - 1].append(unit)
            }
        }
        #expect(accessUnits.count == 30)
        #expect(accessUnits.allSatisfy { unit in unit.filter { H264NALUnitType(of: $0)?.isSlice == true }.count == 4 })

        let sets = try #require(AnnexB.parameterSets(in: stream))
        let configuration = try AVCDecoderConfigurationRecord(sps: sets.sps, pps: sets.pps)
        var writer = FLVWriter(hasAudio: false, hasVideo: true)
        var file = try writer.encode(FLVTag(type: .scriptData, timestamp: 0, body: FLVMetadata(
            width: 320, height: 240, frameRate: 30, videoCodecID: FLVMetadata.avcVideoCodecID).encode()))
        file += try writer.encode(FLVTag(type: .video, timestamp: 0,
                                         body: FLVVideoTagBody.sequenceHeader(configuration).encode()))
        var keyFrames = 0
        for (index, unit) in accessUnits.enumerated() {
            let isKeyFrame = unit.contains { H264NALUnitType(of: $0) == .idrSlice }
            keyFrames += isKeyFrame ? 1 : 0
            let body = FLVVideoTagBody.frame(AnnexB.lengthPrefixed(nalUnits: unit), isKeyFrame: isKeyFrame)
            file += try writer.encode(FLVTag(type: .video, timestamp: UInt32(index * 1000 / 30), body: body.encode()))
        }
        file += try writer.encode(FLVTag(type: .video, timestamp: 1000, body: FLVVideoTagBody.endOfSequence.encode()))
        #expect(keyFrames == 2)

        let output = directory.file("ours.flv")
        try Data(file).write(to: URL(fileURLWithPath: output))
        #expect(try ProbeReport.probe(output).video?.frameCount == 30)
        let errors = try ProbeReport.decodeErrors(output)
        #expect(errors.isEmpty, "ffmpeg: \(errors)")
    }
}
