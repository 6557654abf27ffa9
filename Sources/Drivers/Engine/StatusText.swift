#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// The words a broadcast's status is shown in: the status line, a line per connection change, the summary at the
/// end. One wording for `stream broadcast` and the iOS extension's log.
public enum StatusText {
    /// `live 00:12 | video 2480 kbps (target 2500) | audio 128 kbps | 30.0 fps (18 ms/frame) | dropped 0 | ...`.
    public static func statusLine(_ state: BroadcastState, _ statistics: BroadcastStatistics) -> String {
        [
            "\(state) \(elapsed(statistics.elapsedSeconds))",
            "video \(statistics.videoKbps) kbps (target \(statistics.currentVideoBitrateKbps))",
            "audio \(statistics.audioKbps) kbps",
            Self.printf("%.1f fps (%.0f ms/frame)", statistics.framesPerSecond, statistics.frameWorkMilliseconds),
            "dropped \(statistics.droppedFrames)",
            "queue \(statistics.queueMilliseconds) ms",
            "reconnects \(statistics.reconnects)",
        ].joined(separator: " | ") + latency(statistics)
    }

    /// One destination's line when there are several: `  rtmp://a/live/••••: live | queue 12 ms | dropped 0 |
    /// reconnects 0`.
    public static func destinationLine(label: String, _ status: BroadcastOutput.Status) -> String {
        "  \(label): " + [
            "\(status.state)",
            "queue \(status.queueMilliseconds) ms",
            "dropped \(status.queue.droppedVideoFrames)",
            "reconnects \(status.reconnects)",
        ].joined(separator: " | ")
    }

    /// `00:24, 700 frames, 12 dropped (10 by the send queue, 0 keyframes; 2 late; 0 audio), 2 reconnects (offline
    /// 7.4 s, longest outage 4.1 s) | latency p50 12 ms, p99 31 ms`.
    public static func summary(_ statistics: BroadcastStatistics) -> String {
        var text = "\(elapsed(statistics.elapsedSeconds)), \(statistics.framesEncoded) frames, "
            + "\(statistics.droppedFrames) dropped (\(statistics.framesDroppedByQueue) by the send queue, "
            + "\(statistics.droppedKeyframesByQueue) keyframes; \(statistics.framesSkippedLate) late; "
            + "\(statistics.audioFramesDroppedByQueue) audio), \(statistics.reconnects) reconnects"
        if statistics.outages > 0 {
            text += Self.printf(" (offline %.1f s, longest outage %.1f s)", statistics.offlineSeconds,
                           statistics.longestOutageSeconds)
        }
        return text + latency(statistics)
    }

    /// One destination's summary when there are several: `  rtmp://a/live/••••: ended (stopped), 3 dropped
    /// (0 keyframes, 0 audio), 1 reconnects (offline 15.2 s, longest outage 15.2 s)`.
    public static func destinationSummary(label: String, _ status: BroadcastOutput.Status) -> String {
        var text = "  \(label): \(status.state), \(status.queue.droppedVideoFrames) dropped "
            + "(\(status.queue.droppedKeyframes) keyframes, \(status.queue.droppedAudioFrames) audio), "
            + "\(status.reconnects) reconnects"
        if status.outages > 0 {
            text += Self.printf(" (offline %.1f s, longest outage %.1f s)",
                           status.offlineDuration / .seconds(1), status.longestOutageDuration / .seconds(1))
        }
        if case .failed(let error) = status.state { text += ": \(error.message)" }
        return text
    }

    /// A line for an output's connection changing: lost, another attempt failed, live again; nil otherwise.
    public static func connectionEvent(label: String, from old: BroadcastState,
                                       to status: BroadcastOutput.Status) -> String? {
        let reason = status.lastError?.message ?? "no reason given"
        switch (old, status.state) {
        case (.live, .reconnecting):
            return "connection lost: \(reason); reconnecting"
        case (.reconnecting(let before), .reconnecting(let now)) where now > before:
            return "reconnect attempt \(before) failed: \(reason); trying again"
        case (.reconnecting, .live):
            let outage = (status.lastOutageDuration ?? .zero) / .seconds(1)
            return "\(label): live again after " + Self.printf("%.1f", outage)
                + " s off the air (reconnect \(status.reconnects))"
        case (.live, .failed), (.reconnecting, .failed):
            return "\(label): gave up: \(reason)"
        default:
            return nil
        }
    }

    /// ` | latency p50 12 ms, p99 31 ms` once frames have reached the network, else nothing.
    private static func latency(_ statistics: BroadcastStatistics) -> String {
        guard let median = statistics.latencyP50Milliseconds, let p99 = statistics.latencyP99Milliseconds else {
            return ""
        }
        return " | latency p50 \(median) ms, p99 \(p99) ms"
    }

    /// `mm:ss`.
    public static func elapsed(_ seconds: Double) -> String {
        let whole = Int(max(0, seconds))
        return Self.printf("%02d:%02d", whole / 60, whole % 60)
    }

    /// C's printf formatting (no locale, no ICU: Foundation's `String(format:)` would map them).
    static func printf(_ format: String, _ arguments: any CVarArg...) -> String {
        withVaList(arguments) { list in
            var buffer = [CChar](repeating: 0, count: 256)
            _ = vsnprintf(&buffer, buffer.count, format, list)
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
