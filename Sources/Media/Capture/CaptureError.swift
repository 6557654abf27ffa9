/// An error from screen, audio or camera capture: what happened and what to do about it.
public struct CaptureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Hashable, Sendable {
        /// No X display can be opened.
        case display
        /// The screen cannot be grabbed.
        case screen
        /// The audio server (PulseAudio or PipeWire's pulse) cannot be reached.
        case audioServer
        /// No audio input, or the one asked for cannot be read.
        case audioInput
        /// The camera cannot be opened or read.
        case camera
        /// A Y4M file or stream is malformed.
        case y4m
    }

    /// The kind of failure.
    public let code: Code
    /// What happened and what to do about it.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A human-readable explanation of the error.
    public var description: String { message }

    static func cannotOpenDisplay(_ name: String) -> Self {
        if name.isEmpty {
            return Self(.display, "cannot open an X display: DISPLAY is not set; pass --display :0 or run inside an "
                            + "X session (Wayland sessions need XWayland; the desktop portal is not supported)")
        }
        return Self(.display, "cannot open X display '\(name)': is an X server running? "
                + "Wayland sessions need XWayland; the desktop portal is not supported")
    }

    static func screen(_ message: String) -> Self { Self(.screen, message) }

    static func audioServer(_ message: String) -> Self { Self(.audioServer, message) }

    static func noAudioInput() -> Self {
        Self(.audioInput, "no audio input is available: connect a microphone or check that PulseAudio "
                + "(or PipeWire's pulse server) is running ('pactl list sources short')")
    }

    static func audioInput(_ message: String) -> Self { Self(.audioInput, message) }

    static func camera(_ message: String) -> Self { Self(.camera, message) }

    static func y4m(_ message: String) -> Self { Self(.y4m, message) }
}
