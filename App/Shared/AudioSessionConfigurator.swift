import AVFAudio
import AppLogic

/// Applies `AudioSessionPlan` to the shared `AVAudioSession` and reads its inputs. Every argument comes from AppLogic.
enum AudioSessionConfigurator {
    /// The deployment target is iOS 26, where `.bluetoothHighQualityRecording` exists; a device that refuses it
    /// (a generic HFP mic) is handled by the ladder's next rung.
    static let capabilities = AudioSessionPlan.Capabilities(hasBluetoothHighQualityRecording: true)

    /// Sets category, mode and the first accepted options of the ladder, then activates the session.
    /// - Returns: the ladder's outcome.
    /// - Throws: when the session cannot be activated.
    @discardableResult
    static func activate() throws -> AudioSessionPlan.Outcome {
        let session = AVAudioSession.sharedInstance()
        let plan = AudioSessionPlan(capabilities: capabilities)
        let outcome = plan.apply { options in
            try session.setCategory(category(plan.category), mode: mode(plan.mode), options: categoryOptions(options))
        }
        try session.setActive(true)
        return outcome
    }

    /// The session's inputs (only complete after `activate()`).
    static func availableInputs() -> [AudioSessionInput] {
        (AVAudioSession.sharedInstance().availableInputs ?? []).map {
            AudioSessionInput(id: $0.uid, name: $0.portName, portType: $0.portType.rawValue)
        }
    }

    /// Hands the saved input to `setPreferredInput` (nil for the system default).
    /// - Parameter savedID: `StreamSettings.audioInputID`.
    /// - Returns: what was chosen.
    @discardableResult
    static func applyPreferredInput(savedID: String?) -> AudioInputSelection {
        let session = AVAudioSession.sharedInstance()
        let selection = AudioInputSelection(savedID: savedID, available: availableInputs())
        let port = selection.preferredInput.flatMap { input in
            session.availableInputs?.first { $0.uid == input.id }
        }
        // setPreferredInput may report success without switching when several Bluetooth devices are connected
        // (see App/README.md); there is nothing better to do than try.
        try? session.setPreferredInput(port)
        return selection
    }

    private static func category(_ category: AudioSessionPlan.Category) -> AVAudioSession.Category {
        switch category {
        case .playAndRecord: .playAndRecord
        }
    }

    private static func mode(_ mode: AudioSessionPlan.Mode) -> AVAudioSession.Mode {
        switch mode {
        case .default: .default
        }
    }

    private static func categoryOptions(_ options: AudioSessionOptions) -> AVAudioSession.CategoryOptions {
        var result: AVAudioSession.CategoryOptions = []
        if options.contains(.allowBluetoothHFP) { result.insert(.allowBluetoothHFP) }
        if options.contains(.bluetoothHighQualityRecording) { result.insert(.bluetoothHighQualityRecording) }
        if options.contains(.allowBluetoothA2DP) { result.insert(.allowBluetoothA2DP) }
        return result
    }
}
