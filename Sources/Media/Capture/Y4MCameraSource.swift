#if canImport(Glibc)
import Glibc
#endif
import Media

/// A camera stand-in that reads a YUV4MPEG2 file or pipe (`--camera y4m:PATH`) and produces pooled I420 frames.
///
/// A regular file loops from its start at end of file; a pipe or FIFO ends when its writer closes it.
/// Reading blocks; the caller paces frames (for example at ``frameRate``).
public final class Y4MCameraSource: CameraSource {
    /// The stream header.
    public let header: Y4MHeader
    /// The path that was opened.
    public let path: String
    /// Whether the input is a regular file (which loops) rather than a pipe.
    public let isRegularFile: Bool
    private let pool: FramePool
    private var descriptor: Int32
    private var parser = Y4MParser()
    private var readBuffer = [UInt8](repeating: 0, count: 65_536)

    /// Opens a Y4M file or FIFO and reads its header (blocking until a FIFO's writer sends it).
    /// - Parameters:
    ///   - path: the file or FIFO.
    ///   - poolSize: how many frames may be alive downstream at once.
    /// - Throws: ``CaptureError`` when the file cannot be opened or its header is malformed.
    public init(path: String, poolSize: Int = 4) throws(CaptureError) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw CaptureError.y4m("cannot open Y4M camera '\(path)': \(reason)")
        }
        var status = stat()
        isRegularFile = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
        var found: Y4MHeader?
        do throws(CaptureError) {
            while found == nil {
                guard try Self.fill(&parser, from: descriptor, buffer: &readBuffer) else {
                    throw CaptureError.y4m("Y4M camera '\(path)' ended before its header: the file is empty")
                }
                if case .header(let header)? = try parser.next() { found = header }
            }
        } catch {
            close(descriptor)
            throw error
        }
        header = found!
        pool = FramePool(format: .i420, width: header.width, height: header.height, maxCount: max(1, poolSize))
    }

    deinit { close(descriptor) }

    /// Width of the frames in pixels.
    public var width: Int { header.width }
    /// Height of the frames in pixels.
    public var height: Int { header.height }
    /// Frames per second from the header's `F` parameter.
    public var frameRate: Double { header.frameRate }
    /// False: a file is read as fast as asked, so readers pace it at ``frameRate``.
    public var pacesItself: Bool { false }
    /// Pool counters (allocations, reuse, exhaustions).
    public var poolStatistics: PoolStatistics { pool.statistics }

    /// Reads the next frame, rewinding a regular file at its end.
    /// - Throws: ``CaptureError`` on a read error or a malformed frame record.
    public func nextFrame(pts: Int64) throws(CaptureError) -> CameraRead {
        var rewound = false
        while true {
            if case .frame(let bytes)? = try parser.next() {
                guard var frame = pool.makeFrame(pts: pts) else { return .dropped }
                bytes.withUnsafeBytes { PlaneCopy.copyPackedI420($0, into: &frame) }
                return .frame(frame)
            }
            if try Self.fill(&parser, from: descriptor, buffer: &readBuffer) { continue }
            guard isRegularFile, !rewound else {
                if isRegularFile {
                    throw CaptureError.y4m("Y4M camera '\(path)' has no complete frame to loop over")
                }
                return .ended
            }
            rewound = true
            guard lseek(descriptor, 0, SEEK_SET) == 0 else {
                throw CaptureError.y4m("cannot rewind Y4M camera '\(path)': \(String(cString: strerror(errno)))")
            }
            parser = Y4MParser()
            guard case .header? = try parser.nextAfterFilling(from: descriptor, buffer: &readBuffer) else {
                throw CaptureError.y4m("Y4M camera '\(path)' lost its header while looping")
            }
        }
    }

    /// Reads once from `descriptor` into the parser.
    /// - Returns: false at end of file.
    fileprivate static func fill(_ parser: inout Y4MParser, from descriptor: Int32,
                                 buffer: inout [UInt8]) throws(CaptureError) -> Bool {
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                parser.append(buffer[0..<count])
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            throw CaptureError.y4m("reading the Y4M camera failed: \(String(cString: strerror(errno)))")
        }
    }
}

extension Y4MParser {
    /// Reads until the parser yields an item, or nil at end of file.
    fileprivate mutating func nextAfterFilling(from descriptor: Int32,
                                               buffer: inout [UInt8]) throws(CaptureError) -> Item? {
        while true {
            if let item = try next() { return item }
            guard try Y4MCameraSource.fill(&self, from: descriptor, buffer: &buffer) else { return nil }
        }
    }
}
