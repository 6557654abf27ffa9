#if canImport(CPulse)
import CPulse
import Media
import Locking

/// Captures one PulseAudio source (a microphone or an output's monitor) as 48 kHz stereo Float32 buffers.
///
/// The server converts from the device's own format (the stream asks for `float32le`, 48 000 Hz, 2 channels) and
/// delivers fragments of about ``Options/fragmentMilliseconds``. They are cut into pooled buffers of
/// ``Options/framesPerBuffer`` sample frames and handed to the handler on PulseAudio's thread: the handler must
/// return quickly (queue or mix the buffer, never block). Timestamps count samples from the first fragment, so they
/// are gap-free even when the server delivers in bursts.
public final class PulseAudioSource {
    /// The format of every delivered buffer.
    public static let format = PCMFormat(sampleFormat: .float32, sampleRate: 48_000, channels: 2)

    /// How to capture.
    public struct Options: Sendable, Hashable {
        /// The server address; nil for the default (`$PULSE_SERVER`, then the user's runtime directory).
        public var server: String?
        /// Sample frames per delivered buffer (960 = 20 ms at 48 kHz; 1024 = one AAC frame).
        public var framesPerBuffer: Int
        /// The fragment size asked of the server: the capture latency.
        public var fragmentMilliseconds: Int
        /// How many buffers may be alive downstream at once; beyond that, audio is dropped and counted.
        public var poolSize: Int

        /// Describes a capture: 20 ms fragments into 20 ms buffers by default.
        public init(server: String? = nil, framesPerBuffer: Int = 960, fragmentMilliseconds: Int = 20,
                    poolSize: Int = 32) {
            self.server = server
            self.framesPerBuffer = framesPerBuffer
            self.fragmentMilliseconds = fragmentMilliseconds
            self.poolSize = poolSize
        }
    }

    /// Counters of a running capture.
    public struct Statistics: Sendable, Hashable {
        /// Buffers handed to the handler.
        public var delivered = 0
        /// Sample frames dropped because every pooled buffer was in use.
        public var droppedFrames = 0
        /// Sample frames the server reported lost (overruns), replaced by nothing.
        public var lostFrames = 0
    }

    /// The source that is captured.
    public let sourceID: String
    private let connection: PulseAudioConnection
    private var stream: OpaquePointer?
    private let receiver: Receiver

    /// Connects to the server and starts capturing `sourceID`.
    /// - Parameters:
    ///   - sourceID: a source name from ``PulseAudioInputLister`` (or `@DEFAULT_SOURCE@`, `@DEFAULT_MONITOR@`).
    ///   - options: server, buffer size, latency.
    ///   - handler: receives each full buffer on PulseAudio's thread.
    /// - Throws: ``CaptureError`` when the server is unreachable or the source does not exist.
    public init(sourceID: String, options: Options = Options(),
                handler: @escaping @Sendable (PCMBuffer) -> Void) throws(CaptureError) {
        precondition(options.framesPerBuffer > 0 && options.fragmentMilliseconds > 0, "invalid capture options")
        self.sourceID = sourceID
        connection = try PulseAudioConnection(server: options.server)
        receiver = Receiver(pool: PCMBufferPool(format: Self.format, frameCount: options.framesPerBuffer,
                                                maxCount: max(1, options.poolSize)),
                            mainloop: connection.mainloop, handler: handler)
        let connection = connection
        let receiver = receiver
        stream = try connection.locked { () throws(CaptureError) -> OpaquePointer in
            var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(Self.format.sampleRate),
                                      channels: UInt8(Self.format.channels))
            guard let stream = pa_stream_new(connection.context, "Stream capture", &spec, nil) else {
                throw CaptureError.audioServer("cannot create a PulseAudio stream: \(connection.lastError())")
            }
            let userdata = Unmanaged.passUnretained(receiver).toOpaque()
            pa_stream_set_state_callback(stream, { _, userdata in
                guard let userdata else { return }
                let receiver = Unmanaged<Receiver>.fromOpaque(userdata).takeUnretainedValue()
                pa_threaded_mainloop_signal(receiver.mainloop, 0)
            }, userdata)
            pa_stream_set_read_callback(stream, { stream, _, userdata in
                guard let stream, let userdata else { return }
                Unmanaged<Receiver>.fromOpaque(userdata).takeUnretainedValue().read(stream)
            }, userdata)
            let fragmentBytes = Self.format.bytesPerFrame * Self.format.sampleRate
                * options.fragmentMilliseconds / 1_000
            var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max,
                                            minreq: UInt32.max, fragsize: UInt32(fragmentBytes))
            let flags = pa_stream_flags_t(PA_STREAM_ADJUST_LATENCY.rawValue)
            var failure: String?
            if pa_stream_connect_record(stream, sourceID, &attributes, flags) < 0 {
                failure = connection.lastError()
            }
            while failure == nil {
                let state = pa_stream_get_state(stream)
                if state == PA_STREAM_READY { break }
                if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED {
                    failure = connection.lastError()
                } else {
                    pa_threaded_mainloop_wait(connection.mainloop)
                }
            }
            if let failure {
                pa_stream_set_state_callback(stream, nil, nil)
                pa_stream_set_read_callback(stream, nil, nil)
                pa_stream_unref(stream)
                throw CaptureError.audioInput("audio input '\(sourceID)' cannot be captured: \(failure); "
                                                  + "'stream inputs' lists the available inputs")
            }
            return stream
        }
    }

    deinit { stop() }

    /// Counters so far.
    public var statistics: Statistics { receiver.statistics.withLock { $0 } }

    /// Stops capturing; no handler call starts after this returns. Idempotent.
    public func stop() {
        guard let stream else { return }
        self.stream = nil
        pa_threaded_mainloop_lock(connection.mainloop)
        pa_stream_set_read_callback(stream, nil, nil)
        pa_stream_set_state_callback(stream, nil, nil)
        pa_stream_disconnect(stream)
        pa_stream_unref(stream)
        pa_threaded_mainloop_unlock(connection.mainloop)
    }

    /// Cuts fragments into pooled buffers. `read` runs on the mainloop thread only; `statistics` is also read by
    /// the owner, hence the mutex.
    private final class Receiver {
        let mainloop: OpaquePointer
        let statistics = Locked(Statistics())
        private let pool: PCMBufferPool
        private let handler: @Sendable (PCMBuffer) -> Void
        private var pending: PCMBuffer?
        private var pendingFrames = 0
        private var discardFrames = 0
        private var firstPTS: Int64?
        private var framesSeen: Int64 = 0

        init(pool: PCMBufferPool, mainloop: OpaquePointer, handler: @escaping @Sendable (PCMBuffer) -> Void) {
            self.pool = pool
            self.mainloop = mainloop
            self.handler = handler
        }

        func read(_ stream: OpaquePointer) {
            while pa_stream_readable_size(stream) > 0 {
                var data: UnsafeRawPointer?
                var length = 0
                guard pa_stream_peek(stream, &data, &length) == 0, length > 0 else { return }
                let frames = length / PulseAudioSource.format.bytesPerFrame
                if let data {
                    consume(UnsafeRawBufferPointer(start: data, count: frames * PulseAudioSource.format.bytesPerFrame))
                } else {
                    statistics.withLock { $0.lostFrames += frames }
                }
                pa_stream_drop(stream)
            }
        }

        private func consume(_ bytes: UnsafeRawBufferPointer) {
            let bytesPerFrame = PulseAudioSource.format.bytesPerFrame
            let frames = bytes.count / bytesPerFrame
            if firstPTS == nil {
                firstPTS = MonotonicClock.nanoseconds - Int64(frames) * 1_000_000_000 / 48_000
            }
            var offset = 0
            while offset < frames {
                if pending == nil && discardFrames == 0 {
                    let pts = firstPTS! + framesSeen * 1_000_000_000 / 48_000
                    if let buffer = pool.makeBuffer(pts: pts) {
                        pending = buffer
                    } else {
                        discardFrames = pool.frameCount
                        statistics.withLock { $0.droppedFrames += pool.frameCount }
                    }
                }
                let room = pending == nil ? discardFrames : pool.frameCount - pendingFrames
                let count = min(room, frames - offset)
                if pending != nil {
                    let start = pendingFrames * bytesPerFrame
                    let source = bytes.baseAddress!.advanced(by: offset * bytesPerFrame)
                    pending!.withUnsafeMutableBytes { destination in
                        destination.baseAddress!.advanced(by: start).copyMemory(from: source,
                                                                                byteCount: count * bytesPerFrame)
                    }
                    pendingFrames += count
                    if pendingFrames == pool.frameCount, let full = pending.take() {
                        pendingFrames = 0
                        statistics.withLock { $0.delivered += 1 }
                        handler(full)
                    }
                } else {
                    discardFrames -= count
                }
                offset += count
                framesSeen += Int64(count)
            }
        }
    }
}
#endif
