#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import MP4

extension FragmentIndex {
    /// Indexes a fragmented MP4 file on disk (``FragmentScanner`` driven with `pread`): an hour of 2 s fragments is
    /// about 1800 reads of a box header or a `moof`, never the media.
    /// - Parameter path: the file.
    /// - Returns: the index; nil when the file cannot be read or is not fragmented MP4 (an FLV recording, a file
    ///   that holds no `moov` yet).
    public static func read(path: String) -> FragmentIndex? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { _ = close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        var scanner = FragmentScanner(fileSize: Int(info.st_size))
        do {
            var step = try scanner.start()
            var buffer: [UInt8] = []
            while case .read(let offset, let count) = step {
                buffer = [UInt8](repeating: 0, count: count)
                let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
                if got < 0 && errno == EINTR { continue }
                guard got >= 0 else { return nil }
                step = try scanner.received(Array(buffer.prefix(got)))
            }
            guard case .done(let index) = step else { return nil }
            return index
        } catch {
            return nil
        }
    }
}
