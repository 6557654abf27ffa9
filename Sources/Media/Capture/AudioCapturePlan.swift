/// Which PulseAudio sources a broadcast captures: the microphone, and the system audio monitor when app audio is on.
public struct AudioCapturePlan: Sendable, Hashable {
    /// The microphone (or other input) to capture.
    public var microphone: AudioInput
    /// The monitor of the default output, mixed in when app audio is included; nil otherwise.
    public var systemAudioID: String?
    /// Set when the saved input was missing and the default was used: show it to the user.
    public var warning: String?

    /// Describes a plan.
    public init(microphone: AudioInput, systemAudioID: String?, warning: String?) {
        self.microphone = microphone
        self.systemAudioID = systemAudioID
        self.warning = warning
    }

    /// Decides what to capture from the settings and the inputs present now.
    ///
    /// The microphone follows ``AudioInputResolver``. The system audio is the default output's monitor, left out
    /// when app audio is off or when the chosen input already is that monitor (it would be heard twice).
    /// - Parameters:
    ///   - savedInputID: `StreamSettings.audioInputID`.
    ///   - includeAppAudio: `StreamSettings.includeAppAudio`.
    ///   - includeMicrophone: false for the system audio alone (`StreamSettings.AudioSource.system`): the monitor
    ///     is then captured as the only source.
    ///   - inputs: from ``PulseAudioInputLister/list(server:)``.
    /// - Throws: ``CaptureError`` when there is no input at all.
    public static func make(savedInputID: String?, includeAppAudio: Bool, includeMicrophone: Bool = true,
                            inputs: AudioInputList) throws(CaptureError) -> AudioCapturePlan {
        if !includeMicrophone {
            // System audio alone: the default output's monitor is the one source.
            guard let id = inputs.systemAudioID, let monitor = inputs.inputs.first(where: { $0.id == id }) else {
                throw .audioInput("there is no system audio to capture: PulseAudio has no default output with a "
                                      + "monitor; choose the microphone (--audio mic)")
            }
            return AudioCapturePlan(microphone: monitor, systemAudioID: nil, warning: nil)
        }
        let resolution = try AudioInputResolver.resolve(savedID: savedInputID, inputs: inputs.inputs)
        let system = includeAppAudio ? inputs.systemAudioID : nil
        return AudioCapturePlan(microphone: resolution.input,
                                systemAudioID: system == resolution.input.id ? nil : system,
                                warning: resolution.warning)
    }
}
