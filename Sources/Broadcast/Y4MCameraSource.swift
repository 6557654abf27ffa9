import Foundation
import Media

/// A camera played from a YUV4MPEG2 file (`--camera y4m:PATH`), looped, paced by the file's frame rate on the
/// session clock, in I420 frames from a bounded pool.
public final class Y4MCameraSource: CameraSource {
    /// The file's header.
    public let header: Y4MHeader
    /// The file.
    public let path: String
    private let descriptor: Int32
    private let firstFrameOffset: off_t
    private let pool: FramePool
    private var buffer: [UInt8]
    private var delivered = -1
    private var fileFrame = 0

    /// Opens `path` and reads its header.
    /// - Throws: `BroadcastError` (`.invalidConfiguration`) when it cannot be read or is not 8-bit 4:2:0.
    public init(path: String) throws(BroadcastError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw BroadcastError(.invalidConfiguration, "cannot open the Y4M camera file \(path): "
                                    + String(cString: strerror(errno)))
        }
        descriptor = fd
        do {
            let line = try Self.readLine(fd, path: path)
            header = try Y4MHeader(line: line)
        } catch {
            close(fd)
            throw error
        }
        firstFrameOffset = lseek(fd, 0, SEEK_CUR)
        pool = FramePool(format: .i420, width: header.width, height: header.height, maxCount: 3)
        buffer = [UInt8](repeating: 0, count: header.frameByteCount)
    }

    deinit {
        close(descriptor)
    }

    /// The pool's counters.
    public var statistics: PoolStatistics { pool.statistics }

    /// The file's frame for time `pts` (nanoseconds), or nil when it is the one already delivered (or unreadable).
    public func frame(index: Int, pts: Int64) -> VideoFrame? {
        let rate = header.frameRate
        let wanted = Int(pts * Int64(rate.numerator) / (Int64(rate.denominator) * 1_000_000_000))
        guard wanted > delivered else { return nil }
        // Read (and skip) up to the wanted frame.
        while delivered < wanted {
            guard readNextFrame() else { return nil }
            delivered += 1
        }
        guard var frame = pool.makeFrame(pts: pts) else { return nil }
        let width = header.width
        let height = header.height
        let chromaWidth = (width + 1) / 2
        let chromaHeight = (height + 1) / 2
        frame.withUnsafeMutablePlanes { planes in
            buffer.withUnsafeBufferPointer { source in
                guard let base = source.baseAddress else { return }
                var offset = 0
                for (plane, size) in [(0, (width, height)), (1, (chromaWidth, chromaHeight)),
                                      (2, (chromaWidth, chromaHeight))] {
                    let destination = planes.baseAddress(ofPlane: plane)
                    let stride = planes.stride(ofPlane: plane)
                    for row in 0..<size.1 {
                        (destination + row * stride).update(from: base + offset, count: size.0)
                        offset += size.0
                    }
                }
            }
        }
        return frame
    }

    /// Reads the next `FRAME` into the buffer, looping to the first frame at the end of the file.
    private func readNextFrame() -> Bool {
        for _ in 0..<2 {
            if let line = try? Self.readLine(descriptor, path: path), line.hasPrefix(Y4MHeader.frameMagic),
               readFully(into: &buffer) {
                fileFrame += 1
                return true
            }
            guard fileFrame > 0 else { return false }
            lseek(descriptor, firstFrameOffset, SEEK_SET)
            fileFrame = 0
        }
        return false
    }

    private func readFully(into bytes: inout [UInt8]) -> Bool {
        let fd = descriptor
        return bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = read(fd, raw.baseAddress! + offset, raw.count - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
    }

    /// Reads one `\n`-terminated line (header or frame line), byte by byte: these lines are short.
    private static func readLine(_ fd: Int32, path: String) throws(BroadcastError) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < Y4MHeader.maximumLineLength {
            let count = read(fd, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else {
                throw BroadcastError(.invalidConfiguration, "the Y4M file \(path) ended inside a header line")
            }
            if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        throw BroadcastError(.invalidConfiguration, "the Y4M file \(path) has a header line over "
                                + "\(Y4MHeader.maximumLineLength) bytes")
    }
}
