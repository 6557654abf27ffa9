import FLV
import Foundation

/// Writes one publish to an FLV file as it arrives.
///
/// Runs on the server's loop thread: writes are small (one tag) and go to the page cache. A failed write closes
/// the file and reports it; the live stream is not affected.
final class FLVRecorder {
    let path: String
    private var handle: FileHandle?
    private var writer = FLVWriter(hasAudio: true, hasVideo: true)
    private(set) var bytesWritten = 0
    private(set) var failure: String?

    /// Creates the file (never overwriting one: a suffix is added) in `directory`.
    init(directory: String, app: String, keyTag: String, now: Date = Date()) throws(IngestServerError) {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let safeApp = app.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        let base = "\(String(safeApp))-\(keyTag.dropFirst())-\(formatter.string(from: now))"
        var candidate = "\(directory)/\(base).flv"
        var attempt = 1
        while FileManager.default.fileExists(atPath: candidate) {
            attempt += 1
            candidate = "\(directory)/\(base)-\(attempt).flv"
        }
        let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw IngestServerError("cannot create the recording \(candidate): \(String(cString: strerror(errno)))")
        }
        path = candidate
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// Appends one tag (the file header goes first).
    func write(_ tag: FLVTag) {
        guard let handle else { return }
        do {
            let bytes = try writer.encode(tag)
            try handle.write(contentsOf: bytes)
            bytesWritten += bytes.count
        } catch {
            failure = "\(error)"
            close()
        }
    }

    /// Closes the file.
    func close() {
        try? handle?.close()
        handle = nil
    }

    deinit { close() }
}
