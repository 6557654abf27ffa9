/// What the go-live camera's capture session must change for the camera and microphone switches: which inputs to
/// remove and add, and whether the session runs. Pure: `CameraLiveMedia` gathers the session's state, asks, and
/// runs the answer between `beginConfiguration` and `commitConfiguration`.
public struct CaptureInputPlan: Sendable, Hashable {
    /// A kind of capture input, named after `AVMediaType`.
    public enum Input: String, Sendable, Hashable, CaseIterable {
        /// `.video`: the front wide-angle camera.
        case video
        /// `.audio`: the default microphone.
        case audio
    }

    /// Inputs to remove (every present input of these kinds), in `Input.allCases` order.
    public var remove: [Input]
    /// Inputs to add (one device each), in `Input.allCases` order.
    public var add: [Input]
    /// Whether the session is to run after the change (`startRunning` if it does not, `stopRunning` if it does).
    public var run: Bool

    /// Decides from the switches and what the session has.
    /// - Parameters:
    ///   - camera: the camera switch.
    ///   - microphone: the microphone switch.
    ///   - present: the kinds of input the session has now.
    public init(camera: Bool, microphone: Bool, present: Set<Input>) {
        let wanted: Set<Input> = Set(Input.allCases.filter { $0 == .video ? camera : microphone })
        remove = Input.allCases.filter { present.contains($0) && !wanted.contains($0) }
        add = Input.allCases.filter { wanted.contains($0) && !present.contains($0) }
        run = !wanted.isEmpty
    }
}
