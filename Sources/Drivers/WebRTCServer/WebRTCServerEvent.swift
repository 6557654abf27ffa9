/// What the WebRTC server reports, one line each; delivered on its event loop's thread (keep the handler quick).
/// No event carries a stream key or a session's Location id.
public enum WebRTCServerEvent: Sendable, Hashable, CustomStringConvertible {
    /// An offer was answered: a session is waiting for ICE.
    case opened(serial: Int, app: String, video: String?, audio: Bool, playback: Bool = false)
    /// ICE selected a path and DTLS completed: media may flow.
    case connected(WHIPSessionStatistics)
    /// The first packet of every answered track arrived and passed SRTP.
    case receiving(WHIPSessionStatistics)
    /// The session ended, with its counters.
    case ended(WHIPSessionStatistics, reason: String)

    /// The log line.
    public var description: String {
        switch self {
        case .opened(let serial, let app, let video, let audio, let playback):
            let tracks = [video.map { "H.264 \($0)" }, audio ? "Opus" : nil].compactMap { $0 }
            return (playback ? "WHEP" : "WHIP") + " session \(serial) on \(app): answered"
                + " (\(tracks.joined(separator: " + "))); waiting for ICE"
        case .connected(let session):
            return "\(session.kind) session \(session.serial) on \(session.app): connected (ICE, DTLS-SRTP) from "
                + (session.remote.map { "\($0)" } ?? "?")
        case .receiving(let session):
            let tracks = [session.videoPackets > 0 ? "H.264" : nil, session.audioPackets > 0 ? "Opus" : nil]
            return "\(session.kind) session \(session.serial) on \(session.app): receiving "
                + tracks.compactMap { $0 }.joined(separator: " and ")
        case .ended(let session, let reason) where session.playback:
            return "WHEP session \(session.serial) on \(session.app): ended (\(reason)); sent "
                + "\(session.videoPackets) H.264 and \(session.audioPackets) Opus RTP packets, "
                + "\(session.packetsResent) resent on NACK, \(session.keyframeSkips) skips to a keyframe, "
                + "\(session.keyframeRequests) keyframe requests from the player, \(session.rtcpPackets) RTCP"
        case .ended(let session, let reason):
            return "WHIP session \(session.serial) on \(session.app): ended (\(reason)); received "
                + "\(session.videoPackets) H.264 and \(session.audioPackets) Opus RTP packets, "
                + "\(session.rtcpPackets) RTCP, \(session.unprotectFailures) refused by SRTP, "
                + "\(session.receiverReports) receiver reports sent, "
                + "\(session.packetsRequested) asked for again (NACK), \(session.packetsRecovered) of them came"
                + (session.videoFrames + session.framesDropped > 0
                    ? "; \(session.packetsSkipped) given up after waiting, "
                        + "\(session.videoFrames) H.264 frames passed on, \(session.framesDropped) dropped, "
                        + "\(session.keyframeRequests) keyframe requests, \(session.audioFrames) AAC frames from Opus"
                    : "")
        }
    }
}

extension WHIPSessionStatistics {
    /// "WHIP" or "WHEP", for log lines.
    var kind: String { playback ? "WHEP" : "WHIP" }
}
