import Capture
import StreamCore

/// The capture options of `stream broadcast` (`--source`, `--display`, `--region`, `--camera`), parsed once so the
/// broadcast command only has to open what they describe.
struct CaptureSourceOptions: Equatable {
    /// Where the broadcast's picture comes from.
    enum Screen: Equatable {
        /// The X11 screen (or a region of it).
        case x11(X11ScreenSource.Options)
        /// The moving test pattern (no display needed).
        case testPattern
    }

    /// The picture source.
    var screen: Screen
    /// The PiP camera: `y4m:PATH` or a V4L2 device path; nil for the test pattern.
    var camera: String?

    /// The options to add to the broadcast command's `options`.
    static let specs: [OptionSpec] = [
        .value("source", valueName: "screen|test",
               help: "X11 screen (XWayland on Wayland) or test (default screen when a display is set)."),
        .value("display", valueName: "NAME", help: "X display to capture (default $DISPLAY), e.g. :0."),
        .value("region", valueName: "WxH+X+Y", help: "Capture only this rectangle of the screen."),
        .flag("no-cursor", help: "Do not draw the pointer into the picture."),
        .value("camera", valueName: "test|y4m:PATH|/dev/videoN",
               help: "PiP camera: test pattern (default), Y4M file or pipe, V4L2 device."),
    ]

    /// Reads the options.
    /// - Parameters:
    ///   - arguments: the parsed command line.
    ///   - environment: where `DISPLAY` is looked up.
    /// - Throws: `CLIError.usage` for an unknown source, a screen without a display, or a malformed region.
    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CLIError) {
        let display = arguments.value("display") ?? environment["DISPLAY"]
        let hasDisplay = !(display ?? "").isEmpty
        let source = arguments.value("source") ?? (hasDisplay ? "screen" : "test")
        switch source {
        case "screen":
            guard hasDisplay else {
                throw CLIError.usage("--source screen needs an X display: set $DISPLAY or pass --display :N "
                                        + "(on Wayland, through XWayland); or use --source test")
            }
            var region: ScreenRegion?
            if let text = arguments.value("region") {
                guard let parsed = ScreenRegion(geometry: text) else {
                    throw CLIError.usage("--region must look like 1280x720+0+0, not '\(text.prefix(40))'")
                }
                region = parsed
            }
            screen = .x11(X11ScreenSource.Options(display: display, region: region,
                                                  drawsCursor: !arguments.flag("no-cursor")))
        case "test":
            screen = .testPattern
        default:
            throw CLIError.usage("--source \(source.prefix(40)) is not a source: use screen or test")
        }
        camera = arguments.value("camera")
    }

    /// Decides the audio the settings ask for: the saved input (or the default, with a warning) mixed with the system
    /// audio when app audio is on.
    /// - Parameters:
    ///   - settings: `audioInputID` and `includeAppAudio` are used.
    ///   - server: the PulseAudio server (`$PULSE_SERVER`), nil for the default.
    ///   - warn: receives the fallback warning, if any.
    /// - Throws: `CaptureError` when no input exists or the server is unreachable.
    static func audioPlan(settings: StreamSettings, server: String?,
                          warn: (String) -> Void) throws(CaptureError) -> AudioCapturePlan {
        let inputs = try PulseAudioInputLister.list(server: server)
        let plan = try AudioCapturePlan.make(savedInputID: settings.audioInputID,
                                             includeAppAudio: settings.includeAppAudio,
                                             includeMicrophone: settings.capturesMicrophone, inputs: inputs)
        if let warning = plan.warning { warn(warning) }
        return plan
    }

    /// Opens the audio the settings ask for: the saved input (or the default, with a warning) mixed with the
    /// system audio when app audio is on, delivered into `queue` for the media loop to pull.
    /// - Parameters:
    ///   - settings: `audioInputID` and `includeAppAudio` are used.
    ///   - server: the PulseAudio server (`$PULSE_SERVER`), nil for the default.
    ///   - queue: where buffers of 1024 sample frames (one AAC frame) arrive.
    ///   - warn: receives the fallback warning, if any.
    /// - Throws: `CaptureError` when no input exists or the server is unreachable.
    static func openAudio(settings: StreamSettings, server: String?, into queue: AudioBufferQueue,
                          warn: (String) -> Void) throws(CaptureError) -> AudioCapture {
        let plan = try audioPlan(settings: settings, server: server, warn: warn)
        return try AudioCapture(plan: plan, options: .init(server: server, framesPerBuffer: 1024)) {
            queue.push($0)
        }
    }
}
