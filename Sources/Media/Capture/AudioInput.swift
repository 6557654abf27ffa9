/// One audio input (a PulseAudio source) that can be captured.
public struct AudioInput: Sendable, Hashable, Codable {
    /// The stable identifier: the PulseAudio source name (e.g. `alsa_input.usb-...analog-stereo`).
    public var id: String
    /// The human name (the source's description).
    public var name: String
    /// Whether the device is connected over Bluetooth.
    public var isBluetooth: Bool
    /// Channels the source delivers natively.
    public var channels: Int
    /// The source's native sample rate in Hz.
    public var sampleRate: Int
    /// Whether this is the monitor of an output (what the speakers play), not a microphone.
    public var isMonitor: Bool
    /// Whether this is the server's default input.
    public var isDefault: Bool

    /// Describes an input.
    public init(id: String, name: String, isBluetooth: Bool = false, channels: Int = 2, sampleRate: Int = 48_000,
                isMonitor: Bool = false, isDefault: Bool = false) {
        self.id = id
        self.name = name
        self.isBluetooth = isBluetooth
        self.channels = channels
        self.sampleRate = sampleRate
        self.isMonitor = isMonitor
        self.isDefault = isDefault
    }

    /// Whether a source is a Bluetooth device, from its `device.bus` property or its name (`bluez_input.…`).
    /// - Parameters:
    ///   - name: the source name.
    ///   - deviceBus: the value of the `device.bus` property, if any.
    public static func isBluetooth(name: String, deviceBus: String?) -> Bool {
        deviceBus?.lowercased() == "bluetooth" || name.hasPrefix("bluez_")
    }
}
