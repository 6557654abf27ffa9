/// One microphone the audio session offers, as `AVAudioSessionPortDescription` describes it.
public struct AudioSessionInput: Sendable, Hashable, Identifiable {
    /// The port's stable `uid`, persisted as `StreamSettings.audioInputID`.
    public var id: String
    /// The port's `portName`, e.g. "DJI Mic 2".
    public var name: String
    /// The raw value of the port's `portType`, e.g. "BluetoothHFP" or "MicrophoneBuiltIn".
    public var portType: String

    /// Creates an input.
    /// - Parameters:
    ///   - id: the port's uid.
    ///   - name: the port's name.
    ///   - portType: the raw value of `AVAudioSession.Port`.
    public init(id: String, name: String, portType: String) {
        self.id = id
        self.name = name
        self.portType = portType
    }

    /// Whether the input is a Bluetooth route (`BluetoothHFP`, `BluetoothLE`, ...): telephony quality, 8–16 kHz.
    public var isBluetooth: Bool { portType.hasPrefix("Bluetooth") }
}
