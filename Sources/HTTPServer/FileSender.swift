#if canImport(Glibc)
import Glibc
#endif

/// Reads a file response's byte range in pieces, as the connection takes them. Loop-thread only; owns the
/// descriptor.
final class FileSender {
    /// Bytes read per piece.
    static let chunkSize = 64 * 1024
    /// Reading stops while more than this waits in the connection's queue.
    static let queueTarget = 256 * 1024
    /// At most this much is read for one connection per loop turn, so a fast client of a large file does not
    /// starve the others.
    static let bytesPerTurn = 1024 * 1024

    private let descriptor: Int32
    private var offset: Int
    private let end: Int

    /// Opens the file and checks that it is still the version the response was built for.
    /// - Returns: nil when it is gone or has changed.
    init?(_ body: HTTPFileBody) {
        let descriptor = open(body.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, Int(info.st_size) == body.identity.size,
              Int(info.st_mtim.tv_sec) == body.identity.modifiedSeconds,
              Int(info.st_mtim.tv_nsec) == body.identity.modifiedNanoseconds else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        offset = body.range.lowerBound
        end = body.range.upperBound
    }

    deinit {
        close(descriptor)
    }

    /// The next piece: empty at the end, nil when reading failed (the file shrank or a disk error).
    func next() -> [UInt8]? {
        let count = min(Self.chunkSize, end - offset)
        guard count > 0 else { return [] }
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            guard let base = buffer.baseAddress else {
                failed = true
                initialized = 0
                return
            }
            while done < count {
                let read = pread(descriptor, base + done, count - done, off_t(offset + done))
                if read < 0 && errno == EINTR { continue }
                guard read > 0 else {
                    failed = true
                    break
                }
                done += read
            }
            initialized = done
        }
        guard !failed else { return nil }
        offset += count
        return bytes
    }
}
