/// Which input to hand to `setPreferredInput`, given the saved choice and what the session lists now.
public enum AudioInputSelection: Sendable, Hashable {
    /// No input was chosen: leave the system's default route (`setPreferredInput(nil)`).
    case systemDefault
    /// The saved input is connected: prefer it.
    case preferred(AudioSessionInput)
    /// The saved input is not connected now (a Bluetooth mic switched off): the default route is used and the
    /// user is told, but the saved choice is kept so it applies again when the mic comes back.
    case missing(savedID: String)

    /// Resolves the saved choice against the available inputs.
    /// - Parameters:
    ///   - savedID: `StreamSettings.audioInputID`.
    ///   - available: the session's `availableInputs`.
    public init(savedID: String?, available: [AudioSessionInput]) {
        guard let savedID else {
            self = .systemDefault
            return
        }
        if let input = available.first(where: { $0.id == savedID }) {
            self = .preferred(input)
        } else {
            self = .missing(savedID: savedID)
        }
    }

    /// The input to pass to `setPreferredInput`, or nil for the system default.
    public var preferredInput: AudioSessionInput? {
        if case .preferred(let input) = self { return input }
        return nil
    }

    /// A line for the picker's footer.
    public var statusText: String {
        switch self {
        case .systemDefault:
            return "Using the default microphone."
        case .preferred(let input) where input.isBluetooth:
            return "Using \(input.name). Bluetooth microphones record at telephony quality (8–16 kHz)."
        case .preferred(let input):
            return "Using \(input.name)."
        case .missing:
            return "The chosen microphone is not connected; the default microphone is used until it is."
        }
    }

    /// The inputs in picker order: Bluetooth first (what this picker is for), then by name; ties keep their order.
    /// - Parameter inputs: the session's `availableInputs`.
    public static func pickerOrder(_ inputs: [AudioSessionInput]) -> [AudioSessionInput] {
        inputs.enumerated().sorted { lhs, rhs in
            if lhs.element.isBluetooth != rhs.element.isBluetooth { return lhs.element.isBluetooth }
            if lhs.element.name != rhs.element.name { return lhs.element.name < rhs.element.name }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }
}
