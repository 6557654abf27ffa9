/// Picks the input to capture from the saved choice and the inputs present now.
public enum AudioInputResolver {
    /// The outcome: the input to use, and a warning when the saved one had to be replaced.
    public struct Resolution: Sendable, Hashable {
        /// The input to capture.
        public var input: AudioInput
        /// Set when the saved input is missing and the default was used instead.
        public var warning: String?
    }

    /// Resolves the saved input identifier against the available inputs.
    ///
    /// The saved id wins when present. Otherwise (nothing saved, or the device is gone) the default input is used,
    /// with a warning in the second case. Without a marked default, the first non-monitor input stands in for it,
    /// then the first input of any kind.
    /// - Parameters:
    ///   - savedID: `StreamSettings.audioInputID` (nil = the default input).
    ///   - inputs: the inputs listed now.
    /// - Returns: the input and an optional warning for the user.
    /// - Throws: ``CaptureError`` when there is no input at all.
    public static func resolve(savedID: String?, inputs: [AudioInput]) throws(CaptureError) -> Resolution {
        if let savedID, let saved = inputs.first(where: { $0.id == savedID }) {
            return Resolution(input: saved, warning: nil)
        }
        guard let fallback = inputs.first(where: \.isDefault) ?? inputs.first(where: { !$0.isMonitor })
            ?? inputs.first
        else {
            throw CaptureError.noAudioInput()
        }
        let warning = savedID.map {
            "audio input '\($0)' is not available; using the default input '\(fallback.name)'"
        }
        return Resolution(input: fallback, warning: warning)
    }
}
