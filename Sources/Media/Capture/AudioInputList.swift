/// The audio inputs of the sound server, and which monitor carries the system audio.
public struct AudioInputList: Sendable, Hashable, Codable {
    /// Every input, microphones and monitors, in the server's order.
    public var inputs: [AudioInput]
    /// The monitor of the default output (what the speakers play), used for app audio; nil without outputs.
    public var systemAudioID: String?

    /// Describes a list.
    public init(inputs: [AudioInput], systemAudioID: String?) {
        self.inputs = inputs
        self.systemAudioID = systemAudioID
    }

    /// The default input, if the server marks one.
    public var defaultInput: AudioInput? { inputs.first(where: \.isDefault) }

    /// Microphones and other capture devices (not monitors).
    public var microphones: [AudioInput] { inputs.filter { !$0.isMonitor } }
}
