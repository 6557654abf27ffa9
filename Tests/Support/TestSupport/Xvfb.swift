import Foundation

/// A virtual X server for screen-capture tests, on a display number it picks itself (`-displayfd`).
public final class Xvfb: @unchecked Sendable {
    // Safe: every stored property is immutable after init.
    private let server: BackgroundProcess
    /// The display name, e.g. `:93`.
    public let display: String
    /// Screen width in pixels.
    public let width: Int
    /// Screen height in pixels.
    public let height: Int

    /// Starts `Xvfb` with a black root window (`-br`), 24-bit colour and no TCP listener.
    /// - Throws: when Xvfb is not installed or does not report a display within 10 s.
    public init(width: Int = 640, height: Int = 480) throws {
        self.width = width
        self.height = height
        server = try BackgroundProcess("Xvfb", ["-displayfd", "1", "-screen", "0", "\(width)x\(height)x24",
                                                "-nolisten", "tcp", "-br", "-noreset"])
        let number = try server.readLine().trimmingCharacters(in: .whitespaces)
        guard Int(number) != nil else {
            throw Subprocess.Failure(description: "Xvfb reported display '\(number)' instead of a number")
        }
        display = ":\(number)"
    }

    /// Opens a borderless window of one solid colour at (`x`, `y`) with ffplay (lavfi `color` source).
    /// - Parameter color: an ffmpeg colour name or `0xRRGGBB`.
    /// - Returns: the running ffplay; stop it (or release it) to close the window.
    public func showWindow(color: String, width: Int, height: Int, x: Int, y: Int) throws -> BackgroundProcess {
        try BackgroundProcess("ffplay", ["-hide_banner", "-loglevel", "error", "-an", "-noborder",
                                         "-left", "\(x)", "-top", "\(y)", "-f", "lavfi",
                                         "-i", "color=c=\(color):s=\(width)x\(height):r=5"],
                              environment: ["DISPLAY": display, "SDL_AUDIODRIVER": "dummy"])
    }

    /// Stops the server.
    public func stop() { server.stop() }
}
