/// The kinds of buffers ReplayKit hands to `processSampleBuffer(_:with:)`, named after `RPSampleBufferType`.
public enum SampleBufferKind: String, Sendable, Hashable, CaseIterable {
    /// `.video`: a screen frame.
    case video
    /// `.audioApp`: the audio of the apps being captured.
    case audioApp
    /// `.audioMic`: the microphone, only when the user enabled it in the broadcast picker.
    case audioMic
}
