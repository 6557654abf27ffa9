import Capture
import Foundation
import Media
import Testing
import TestSupport

@Suite(.startsPeers) struct Y4MParserTests {
    /// A 4x2 C420jpeg stream header (one line, newline-terminated).
    static let header: [UInt8] = Array("YUV4MPEG2 ".utf8)  // magic and separator
        + Array("W4 H2 ".utf8)                             // 4x2 pixels
        + Array("F30000:1001 ".utf8)                       // 29.97 fps
        + Array("Ip A1:1 C420jpeg".utf8)                   // progressive, square pixels, 4:2:0
        + [0x0A]                                            // end of header
    /// One frame record: `FRAME\n`, then 8 luma bytes and 2 + 2 chroma bytes.
    static func frame(_ seed: UInt8) -> [UInt8] {
        Array("FRAME".utf8) + [0x0A]                        // frame marker, no parameters
            + (0..<8).map { seed &+ $0 }                    // Y plane, 4x2
            + [seed &+ 100, seed &+ 101]                    // U plane, 2x1
            + [seed &+ 200, seed &+ 201]                    // V plane, 2x1
    }

    static func parseAll(_ chunks: [[UInt8]]) throws -> [Y4MParser.Item] {
        var parser = Y4MParser()
        var items: [Y4MParser.Item] = []
        for chunk in chunks {
            parser.append(chunk)
            while let item = try parser.next() { items.append(item) }
        }
        return items
    }

    enum Feed: CaseIterable { case whole, byteByByte, merged }

    @Test(arguments: Feed.allCases)
    func parsesHeaderAndFrames(feed: Feed) throws {
        let stream = Self.header + Self.frame(1) + Self.frame(50)
        let chunks: [[UInt8]] = switch feed {
        case .whole: [stream]
        case .byteByByte: stream.map { [$0] }
        case .merged: [Self.header + Self.frame(1), Self.frame(50)]
        }
        let items = try Self.parseAll(chunks)
        try #require(items.count == 3)
        guard case .header(let header) = items[0] else { Issue.record("no header first"); return }
        #expect(header.width == 4 && header.height == 2)
        #expect(header.frameRateNumerator == 30_000 && header.frameRateDenominator == 1_001)
        #expect(abs(header.frameRate - 29.97) < 0.01)
        #expect(header.interlace == .progressive)
        #expect(header.aspectNumerator == 1 && header.aspectDenominator == 1)
        #expect(header.colorspace == .c420jpeg)
        #expect(header.frameByteCount == 12)
        #expect(items[1] == .frame(Array(Self.frame(1).dropFirst(6))))
        #expect(items[2] == .frame(Array(Self.frame(50).dropFirst(6))))
    }

    @Test(arguments: [
        ("YUV4MPEG2 W320 H240 F15:1", 320, 240, Y4MHeader.Colorspace.c420jpeg, Y4MHeader.Interlace.unknown),
        ("YUV4MPEG2 W640 H480 F25:1 It A0:0 C420paldv XYSCSS=420PALDV", 640, 480, .c420paldv, .topFieldFirst),
        ("YUV4MPEG2 W3 H3 F1:1 Ib C420mpeg2", 3, 3, .c420mpeg2, .bottomFieldFirst),
        ("YUV4MPEG2 W2 H2 F1:1 Im C420", 2, 2, .c420, .mixed),
    ])
    func headerVariants(line: String, width: Int, height: Int, colorspace: Y4MHeader.Colorspace,
                        interlace: Y4MHeader.Interlace) throws {
        let header = try Y4MHeader(line: Array(line.utf8))
        #expect(header.width == width && header.height == height)
        #expect(header.colorspace == colorspace)
        #expect(header.interlace == interlace)
    }

    @Test(arguments: [
        ("YUV4MPEG W4 H2 F1:1\n", "not a YUV4MPEG2 stream"),
        ("YUV4MPEG2 H2 F1:1\n", "no frame size"),
        ("YUV4MPEG2 W4 H2\n", "no frame rate"),
        ("YUV4MPEG2 W0 H2 F1:1\n", "W '0' is not a size"),
        ("YUV4MPEG2 W4 H99999 F1:1\n", "H '99999' is not a size"),
        ("YUV4MPEG2 W4 H2 F30\n", "frame rate 'F30'"),
        ("YUV4MPEG2 W4 H2 F0:1\n", "frame rate 'F0:1'"),
        ("YUV4MPEG2 W4 H2 F1:1 C444\n", "colour space 'C444' is not supported"),
        ("YUV4MPEG2 W4 H2 F1:1 C420p10\n", "colour space 'C420p10' is not supported"),
        ("YUV4MPEG2 W4 H2 F1:1 Ix\n", "interlace 'Ix'"),
        ("YUV4MPEG2 W4 H2 F1:1 Ax\n", "pixel aspect 'Ax'"),
        ("GIF89a....", "does not start with 'YUV4MPEG2'"),
    ])
    func malformedHeadersAreRejected(text: String, message: String) {
        var parser = Y4MParser()
        parser.append(Array(text.utf8))
        let error = #expect(throws: CaptureError.self) { try parser.next() }
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "no error")")
    }

    @Test func overlongHeaderIsRejected() {
        var parser = Y4MParser()
        parser.append(Array("YUV4MPEG2 ".utf8) + [UInt8](repeating: 0x58, count: Y4MHeader.maximumLineLength))
        #expect(throws: CaptureError.self) { try parser.next() }
    }

    @Test func damagedFrameRecordIsRejected() throws {
        var parser = Y4MParser()
        parser.append(Self.header + Array("FRAMX\n".utf8) + [UInt8](repeating: 0, count: 12))
        _ = try parser.next()
        let error = #expect(throws: CaptureError.self) { try parser.next() }
        #expect(error?.message.contains("does not start with 'FRAME'") == true)
    }

    @Test func incompleteFrameWaitsForMoreBytes() throws {
        var parser = Y4MParser()
        parser.append(Self.header + Self.frame(1).dropLast())
        let header = try parser.next()
        #expect(header != nil)
        let early = try parser.next()
        #expect(early == nil)
        parser.append([0xFF])
        let frame = try parser.next()
        #expect(frame != nil)
    }
}

/// Y4M files and pipes made by ffmpeg, read by the camera source.
@Suite(.startsPeers) struct Y4MCameraSourceTests {
    static func makeFile(in directory: TemporaryDirectory, frames: Int = 15) throws -> String {
        let path = directory.file("camera.y4m")
        let ffmpeg = try BackgroundProcess("ffmpeg", ["-hide_banner", "-loglevel", "error", "-f", "lavfi",
                                                      "-i", "testsrc2=size=320x240:rate=15", "-frames:v", "\(frames)",
                                                      "-pix_fmt", "yuv420p", "-y", path])
        let status = ffmpeg.waitForExit()
        try #require(status == 0, "ffmpeg exited with \(String(describing: status))")
        return path
    }

    @Test func readsAFileAndKeepsGoingPastItsEnd() throws {
        let directory = try TemporaryDirectory("y4m")
        let path = try Self.makeFile(in: directory, frames: 3)
        let camera = try Y4MCameraSource(path: path)
        #expect(camera.isRegularFile)
        #expect((camera.width, camera.height) == (320, 240))
        #expect(camera.frameRate == 15)
        var frames: [VideoFrame] = []
        for index in 0..<7 {
            guard case .frame(let frame) = try camera.nextFrame(pts: Int64(index)) else {
                Issue.record("frame \(index) missing")
                return
            }
            #expect(frame.format == .i420 && frame.width == 320 && frame.height == 240)
            #expect(frame.pts == Int64(index))
            frames.append(frame)
            if frames.count > 3 { frames.removeFirst() }  // stay within the pool
        }
    }

    /// Loop check: frame n and frame n + 3 of a 3-frame file are identical.
    @Test func loopRepeatsTheSameFrames() throws {
        let directory = try TemporaryDirectory("y4m")
        let path = try Self.makeFile(in: directory, frames: 3)
        let sums = try Self.lumaSum(Self.reread(path, count: 6))
        #expect(Array(sums[0..<3]) == Array(sums[3..<6]))
        #expect(Set(sums[0..<3]).count == 3)
    }

    @Test func readsAPipeUntilItCloses() throws {
        let directory = try TemporaryDirectory("y4m")
        let fifo = directory.file("camera.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let writer = try BackgroundProcess("ffmpeg", ["-hide_banner", "-loglevel", "error", "-f", "lavfi",
                                                      "-i", "testsrc2=size=160x120:rate=30", "-frames:v", "5",
                                                      "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-y", fifo])
        defer { writer.stop() }
        let camera = try Y4MCameraSource(path: fifo)
        #expect(!camera.isRegularFile)
        #expect((camera.width, camera.height) == (160, 120))
        var count = 0
        while true {
            let read = try camera.nextFrame(pts: 0)
            guard case .frame = read else {
                guard case .ended = read else { Issue.record("unexpected \(read)"); return }
                break
            }
            count += 1
        }
        #expect(count == 5)
    }

    @Test func poolExhaustionDropsFrames() throws {
        let directory = try TemporaryDirectory("y4m")
        let path = try Self.makeFile(in: directory, frames: 2)
        let camera = try Y4MCameraSource(path: path, poolSize: 1)
        let held = try camera.nextFrame(pts: 0)
        guard case .frame = held else { Issue.record("no first frame"); return }
        guard case .dropped = try camera.nextFrame(pts: 1) else { Issue.record("second frame not dropped"); return }
        #expect(camera.poolStatistics.exhaustions == 1)
    }

    @Test func missingAndNonY4MFilesHaveClearErrors() throws {
        let directory = try TemporaryDirectory("y4m")
        let missing = #expect(throws: CaptureError.self) { try Y4MCameraSource(path: directory.file("none.y4m")) }
        #expect(missing?.message.hasPrefix("cannot open Y4M camera") == true)
        let text = directory.file("notes.txt")
        try Data("hello world\n".utf8).write(to: URL(fileURLWithPath: text))
        let wrong = #expect(throws: CaptureError.self) { try Y4MCameraSource(path: text) }
        #expect(wrong?.message.contains("not a YUV4MPEG2 stream") == true)
        let empty = directory.file("empty.y4m")
        try Data().write(to: URL(fileURLWithPath: empty))
        #expect(throws: CaptureError.self) { try Y4MCameraSource(path: empty) }
    }

    static func reread(_ path: String, count: Int) throws -> [VideoFrame] {
        let camera = try Y4MCameraSource(path: path, poolSize: count)
        var frames: [VideoFrame] = []
        for index in 0..<count {
            if case .frame(let frame) = try camera.nextFrame(pts: Int64(index)) { frames.append(frame) }
        }
        try #require(frames.count == count)
        return frames
    }

    static func lumaSum(_ frames: [VideoFrame]) -> [Int] {
        frames.map { frame in
            frame.withUnsafePlanes { planes in
                var sum = 0
                for row in 0..<frame.height {
                    let line = planes.baseAddress(ofPlane: 0) + row * planes.stride(ofPlane: 0)
                    for column in 0..<frame.width { sum += Int(line[column]) }
                }
                return sum
            }
        }
    }
}
