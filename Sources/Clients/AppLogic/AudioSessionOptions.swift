/// The audio session category options the app uses, named after `AVAudioSession.CategoryOptions` so the shell's
/// translation is one line per option.
public struct AudioSessionOptions: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The raw bits (our own, not Apple's values: the shell maps each option by name).
    public let rawValue: UInt8

    /// Creates options from raw bits.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// `.allowBluetoothHFP`: Bluetooth hands-free inputs (the iOS 26 name of the deprecated `.allowBluetooth`).
    /// This is what makes a Bluetooth microphone such as a DJI Mic appear in `availableInputs`.
    public static let allowBluetoothHFP = AudioSessionOptions(rawValue: 1 << 0)
    /// `.bluetoothHighQualityRecording`: AirPods-tuned high-quality recording (iOS 26+); generic mics fall back to
    /// HFP.
    public static let bluetoothHighQualityRecording = AudioSessionOptions(rawValue: 1 << 1)
    /// `.allowBluetoothA2DP`: output only. Never used for the microphone: it does not enable a Bluetooth input.
    public static let allowBluetoothA2DP = AudioSessionOptions(rawValue: 1 << 2)

    /// The option names, e.g. `[allowBluetoothHFP, bluetoothHighQualityRecording]`.
    public var description: String {
        var names: [String] = []
        if contains(.allowBluetoothHFP) { names.append("allowBluetoothHFP") }
        if contains(.bluetoothHighQualityRecording) { names.append("bluetoothHighQualityRecording") }
        if contains(.allowBluetoothA2DP) { names.append("allowBluetoothA2DP") }
        return "[" + names.joined(separator: ", ") + "]"
    }
}
