#if canImport(CX264)
import CX264
import Locking

/// Collects x264's log lines for one encoder, so its reasons end up in an `EncoderError` instead of on stderr.
///
/// x264 may log from its slice threads, so `lines` sits behind a `Locked`. `target` is written once in `init`, then
/// only read by x264, and freed in `deinit`, which runs after the owning `X264Encoder` has closed its `x264_t`.
final class X264Log {
    /// Lines kept; older ones are dropped (x264 explains an open failure in one or two lines).
    static let capacity = 8

    private let lines = Locked<[String]>([])
    /// The C-side routing record handed to x264 as `p_log_private`; points back at this object, unretained.
    let target: UnsafeMutablePointer<stream_x264_log_target>

    init() {
        target = .allocate(capacity: 1)
        target.initialize(to: stream_x264_log_target(context: nil, sink: { context, level, line in
            guard let context, let line, level <= X264_LOG_WARNING else { return }
            let log = Unmanaged<X264Log>.fromOpaque(context).takeUnretainedValue()
            log.append(String(cString: line))
        }))
        target.pointee.context = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        target.deinitialize(count: 1)
        target.deallocate()
    }

    /// Sends the log of an encoder opened with `param` here, keeping warnings and errors.
    func attach(to param: inout x264_param_t) {
        stream_x264_param_set_log(&param, target, X264_LOG_WARNING)
    }

    private func append(_ line: String) {
        let trimmed = String(line.reversed().drop { $0.isWhitespace }.reversed())
        lines.withLock { lines in
            lines.append(trimmed)
            if lines.count > Self.capacity { lines.removeFirst(lines.count - Self.capacity) }
        }
    }

    /// Takes the collected lines, joined for a message, or a fallback when x264 said nothing.
    func drain() -> String {
        let taken = lines.withLock { lines in
            defer { lines.removeAll() }
            return lines
        }
        return taken.isEmpty ? "x264 gave no reason" : taken.joined(separator: "; ")
    }
}
#endif
