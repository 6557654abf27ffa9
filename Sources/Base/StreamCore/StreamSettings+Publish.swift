extension StreamSettings {
    /// The protocol a broadcast publishes with.
    public enum PublishProtocol: String, Sendable, Hashable, Codable, CaseIterable {
        /// RTMP or RTMPS to an ingest (AAC audio).
        case rtmp
        /// WebRTC through a WHIP endpoint (RFC 9725; Opus audio).
        case whip
    }

    /// Which audio a broadcast carries.
    public enum AudioSource: String, Sendable, Hashable, Codable, CaseIterable {
        /// The microphone (on Linux the chosen PulseAudio input).
        case microphone = "mic"
        /// The system's audio: the apps' sound (on Linux the default output's monitor).
        case system
        /// Both, mixed.
        case both
    }

    /// Whether a microphone is captured.
    public var capturesMicrophone: Bool { audioSource != .system }
}
