import AMF
import Recording
#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import RTMP

/// The recording of one publish, through disk trouble.
///
/// Each tag is written whole to the current ``Recorder``. When a write fails (the disk fills), the file is cut
/// back to its last whole tag, patched with what it holds and closed, a plain line says so, and the stream goes on
/// without a recording. At a keyframe, at most every ``retryInterval`` and once ``resumeFreeBytes`` are free, a new
/// file starts with the metadata and sequence headers, so it plays on its own. A loop-thread object.
final class StreamRecording {
    /// How often a recording that stopped tries to start again (at the next keyframe after this).
    static let retryInterval: Duration = .seconds(2)
    /// The free space needed before a stopped recording starts again, so that a nearly full disk does not get a
    /// new, tiny file every few seconds.
    static let resumeFreeBytes = 4 << 20

    /// What a new file needs before its first keyframe.
    struct Headers {
        var metadata: AMF0Object?
        var video: MediaMessage?
        var audio: MediaMessage?
    }

    private enum State {
        case recording(Recorder)
        case waiting(retryAt: ContinuousClock.Instant)
    }

    let directory: String
    private let format: RecordingFormat
    private let app: String
    private let keyTag: String
    private let emit: @Sendable (ServerEvent) -> Void
    private var state: State

    /// Starts the first file; if it cannot be created, says why and waits for a keyframe to try again.
    init(directory: String, format: RecordingFormat, app: String, keyTag: String,
         emit: @escaping @Sendable (ServerEvent) -> Void) {
        self.directory = directory
        self.format = format
        self.app = app
        self.keyTag = keyTag
        self.emit = emit
        do {
            let recorder = try Recorder(directory: directory, format: format, app: app, keyTag: keyTag)
            state = .recording(recorder)
            emit(.recordingStarted(path: recorder.path))
        } catch {
            state = .waiting(retryAt: .now + Self.retryInterval)
            emit(.recordingFailed(path: directory, reason: Self.waitingReason(error)))
        }
    }

    /// Records the publisher's `onMetaData`.
    func writeMetadata(_ object: AMF0Object) {
        guard case .recording(let recorder) = state else { return }
        do {
            try recorder.writeMetadata(object)
        } catch {
            stop(recorder, error)
        }
    }

    /// Records an audio or video message; while stopped, starts a new file at a keyframe (or at an audio frame
    /// when the stream has no video).
    func write(_ message: MediaMessage, isKeyframe: Bool, isHeader: Bool, headers: @autoclosure () -> Headers) {
        guard message.kind != .data else { return }
        switch state {
        case .recording(let recorder):
            do {
                try recorder.writeMedia(video: message.kind == .video, timestamp: message.timestamp,
                                        body: message.body, isFrame: !isHeader)
            } catch {
                stop(recorder, error)
            }
        case .waiting(let retryAt):
            let current = headers()
            let startsPicture = isKeyframe || (current.video == nil && message.kind == .audio && !isHeader)
            guard startsPicture, ContinuousClock.now >= retryAt else { return }
            resume(with: message, headers: current)
        }
    }

    /// Closes the current file (patched with its duration and size), at the end of the publish.
    func finish() {
        guard case .recording(let recorder) = state else { return }
        state = .waiting(retryAt: .now + Self.retryInterval)
        let summary = recorder.finish()
        if summary.removed {
            emit(.recordingRemoved(path: summary.path, reason: "no audio or video arrived"))
        } else {
            emit(.recordingFinished(path: summary.path, bytes: summary.bytes, seconds: summary.durationSeconds))
        }
    }

    private func stop(_ recorder: Recorder, _ error: RecordingWriteError) {
        state = .waiting(retryAt: .now + Self.retryInterval)
        let summary = recorder.finish()
        let kept = summary.removed
            ? "the file held no frame yet and was removed"
            : "the file is closed at its last whole \(format == .mp4 ? "fragment" : "tag") and kept "
                + "(\(Self.megabytes(summary.bytes)), " + Self.oneDecimal(summary.durationSeconds) + " s)"
        let when = error.isDiskFull ? "once space is freed" : "at the next keyframe"
        emit(.recordingFailed(path: summary.path, reason: "\(error.reason): \(kept); the stream goes on, and "
                                + "recording starts again in a new file \(when)"))
    }

    private func resume(with message: MediaMessage, headers: Headers) {
        guard Self.freeBytes(in: directory).map({ $0 >= Self.resumeFreeBytes }) ?? true else {
            state = .waiting(retryAt: .now + Self.retryInterval)
            return
        }
        let recorder: Recorder
        do {
            recorder = try Recorder(directory: directory, format: format, app: app, keyTag: keyTag)
            if let metadata = headers.metadata { try recorder.writeMetadata(metadata) }
            for header in [headers.video, headers.audio].compactMap({ $0 }) {
                try recorder.writeMedia(video: header.kind == .video, timestamp: message.timestamp,
                                        body: header.body, isFrame: false)
            }
            try recorder.writeMedia(video: message.kind == .video, timestamp: message.timestamp,
                                    body: message.body, isFrame: true)
        } catch {
            // Still no room (or no directory): try again later, quietly; the first failure was reported.
            state = .waiting(retryAt: .now + Self.retryInterval)
            return
        }
        state = .recording(recorder)
        emit(.recordingStarted(path: recorder.path))
    }

    private static func waitingReason(_ error: RecordingWriteError) -> String {
        "\(error); the stream goes on without a recording, and recording starts at a keyframe once "
            + (error.isDiskFull ? "space is freed" : "that is fixed")
    }

    private static func megabytes(_ bytes: Int) -> String {
        oneDecimal(Double(bytes) / 1_000_000) + " MB"
    }

    /// `%.1f` through C's formatter (no locale, no ICU: Foundation's `String(format:)` would map them).
    private static func oneDecimal(_ value: Double) -> String {
        withVaList([value]) { list in
            var buffer = [CChar](repeating: 0, count: 64)
            _ = vsnprintf(&buffer, buffer.count, "%.1f", list)
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// The bytes an unprivileged writer may still use on the file system holding `directory`.
    private static func freeBytes(in directory: String) -> Int? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        return Int(clamping: UInt64(info.f_bavail) &* UInt64(info.f_frsize))
    }
}
