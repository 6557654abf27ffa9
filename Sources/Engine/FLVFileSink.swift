import FLV
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// A local FLV recording of the broadcast (`--record FILE`), written as the tags come.
public actor FLVFileSink: MediaSink {
    /// The file path.
    public nonisolated let path: String
    /// `record PATH`.
    public nonisolated var label: String { "record \(path)" }
    /// A file never congests or reconnects.
    public nonisolated var isNetwork: Bool { false }
    private var descriptor: Int32 = -1
    private var writer = FLVWriter()

    /// Creates a sink that will write `path` (created or truncated when opened).
    public init(path: String) {
        self.path = path
    }

    /// Creates (or truncates) the file and writes the FLV header.
    /// - Throws: `BroadcastError` (`.recordingFailed`) when the file cannot be created.
    public func open() throws(BroadcastError) {
        if descriptor >= 0 { return }
        let fd = System.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw BroadcastError(.recordingFailed, "cannot create the recording \(path): \(Self.errnoText()); "
                                    + "check that the directory exists and is writable")
        }
        descriptor = fd
        writer = FLVWriter()
        try write(writer.encodeHeader())
    }

    /// Writes an `onMetaData` tag.
    /// - Throws: `BroadcastError` (`.recordingFailed`) when the write fails.
    public func sendMetadata(_ metadata: FLVMetadata) throws(BroadcastError) {
        try send(FLVTag(metadata: metadata))
    }

    /// Writes one tag.
    /// - Throws: `BroadcastError` (`.recordingFailed`) when the write fails.
    public func send(_ tag: FLVTag) throws(BroadcastError) {
        let bytes: [UInt8]
        do {
            bytes = try writer.encode(tag)
        } catch {
            throw BroadcastError(.recordingFailed, "cannot record a tag: \(error)")
        }
        try write(bytes)
    }

    /// Always 0: writes go straight to the kernel.
    public var queuedBytes: Int { 0 }

    /// Returns at once: nothing is buffered.
    public func waitForDrain(below threshold: Int) {}

    /// Closes the file.
    public func close(flushTimeout: Duration) {
        if descriptor >= 0 {
            _ = System.close(descriptor)
            descriptor = -1
        }
    }

    private func write(_ bytes: [UInt8]) throws(BroadcastError) {
        guard descriptor >= 0 else {
            throw BroadcastError(.recordingFailed, "the recording \(path) is not open")
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { System.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw BroadcastError(.recordingFailed, "cannot write the recording \(path): \(Self.errnoText()); "
                                        + "check the free disk space")
            }
            offset += written
        }
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}

/// The C calls this file makes, named apart from the sink's own `write` and `close`.
private enum System {
    static func open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
        #if canImport(Glibc)
        Glibc.open(path, flags, mode)
        #else
        Darwin.open(path, flags, mode)
        #endif
    }

    static func close(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(descriptor)
        #else
        Darwin.close(descriptor)
        #endif
    }

    static func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
        #else
        Darwin.write(descriptor, bytes, count)
        #endif
    }
}
