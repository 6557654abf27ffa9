/// How the app and the extension configure the shared audio session so a Bluetooth microphone can be listed
/// and chosen: category `.playAndRecord`, mode `.default`, and the category options tried along a fallback ladder.
///
/// Mode `.videoRecording` is deliberately not offered: it makes iOS prefer the built-in microphone near the camera
/// and hides Bluetooth HFP inputs entirely.
public struct AudioSessionPlan: Sendable, Hashable {
    /// The audio session category, named after `AVAudioSession.Category`.
    public enum Category: String, Sendable, Hashable {
        /// `.playAndRecord`: record-capable, which `availableInputs` needs before it lists Bluetooth inputs.
        case playAndRecord
    }

    /// The audio session mode, named after `AVAudioSession.Mode`.
    public enum Mode: String, Sendable, Hashable {
        /// `.default`: keeps Bluetooth HFP inputs visible.
        case `default`
    }

    /// What the device's OS offers.
    public struct Capabilities: Sendable, Hashable {
        /// Whether `.bluetoothHighQualityRecording` exists (iOS 26 and later).
        public var hasBluetoothHighQualityRecording: Bool

        /// Creates capabilities.
        /// - Parameter hasBluetoothHighQualityRecording: whether the high-quality recording option exists.
        public init(hasBluetoothHighQualityRecording: Bool) {
            self.hasBluetoothHighQualityRecording = hasBluetoothHighQualityRecording
        }
    }

    /// The category: always `.playAndRecord`.
    public let category: Category
    /// The mode: always `.default`.
    public let mode: Mode
    /// The option sets to try, in order; the last is always the empty set, which every device accepts.
    public let ladder: [AudioSessionOptions]

    /// The plan for a device.
    ///
    /// The ladder is HFP plus high-quality recording (where the option exists), then HFP alone, then no options,
    /// so an unsupported combination never blocks input enumeration.
    /// - Parameter capabilities: what the OS offers.
    public init(capabilities: Capabilities) {
        category = .playAndRecord
        mode = .default
        var ladder: [AudioSessionOptions] = []
        if capabilities.hasBluetoothHighQualityRecording {
            ladder.append([.allowBluetoothHFP, .bluetoothHighQualityRecording])
        }
        ladder.append(.allowBluetoothHFP)
        ladder.append([])
        self.ladder = ladder
    }

    /// What happened when the ladder was applied.
    public struct Outcome: Sendable, Hashable {
        /// The options the session accepted, or nil when even the plain category failed.
        public var applied: AudioSessionOptions?
        /// One line per rung that was refused, e.g. `[allowBluetoothHFP]: <the OS's reason>`.
        public var refusals: [String]

        /// Whether Bluetooth microphones can be listed with the applied options.
        public var allowsBluetoothInput: Bool { applied?.contains(.allowBluetoothHFP) ?? false }
    }

    /// Walks the ladder until one rung is accepted.
    /// - Parameter attempt: sets the category, mode and the given options on the real session; throws when refused.
    /// - Returns: the accepted options (nil if none was) and why the others were refused.
    public func apply(_ attempt: (AudioSessionOptions) throws -> Void) -> Outcome {
        var refusals: [String] = []
        for options in ladder {
            do {
                try attempt(options)
                return Outcome(applied: options, refusals: refusals)
            } catch {
                refusals.append("\(options): \(error)")
            }
        }
        return Outcome(applied: nil, refusals: refusals)
    }
}
