#if os(Linux)
import Engine
import Media

/// A Linux broadcast's sources, opened from its configuration: the test patterns, the X11 screen, PulseAudio, the
/// PiP camera (a V4L2 device or a Y4M file on its own reading thread).
struct LinuxSources {
    /// The screen sizes a session accepts, per side.
    static let screenSizes = 64...8192

    /// The picture.
    let screen: any ScreenSource
    /// The PiP camera, when PiP is on.
    let camera: PiPCamera?
    /// The sound.
    let audio: any AudioSource

    /// Opens the configuration's sources.
    /// - Throws: `BroadcastError` (`.invalidConfiguration`) when one cannot be opened.
    init(_ configuration: BroadcastConfiguration) throws(BroadcastError) {
        screen = try Self.openScreen(configuration.screen)
        camera = configuration.settings.pipEnabled ? try PiPCamera(configuration.camera) : nil
        audio = try Self.openAudio(configuration.audio)
    }

    private static func openScreen(_ screen: BroadcastConfiguration.Screen) throws(BroadcastError)
        -> any ScreenSource {
        switch screen {
        case .test(let size):
            guard screenSizes.contains(size.width), screenSizes.contains(size.height) else {
                throw BroadcastError(.invalidConfiguration, "the test screen size \(size) must be between 64x64 "
                                        + "and 8192x8192")
            }
            return TestScreenSource(size: size)
        case .x11(let options):
            return try X11Screen(options: options)
        }
    }

    private static func openAudio(_ audio: BroadcastConfiguration.Audio) throws(BroadcastError) -> any AudioSource {
        switch audio {
        case .tone(let frequency): return TestToneSource(frequency: frequency)
        case .pulse(let plan, let server): return try PulseAudioInput(plan: plan, server: server)
        }
    }
}
#endif

#if os(Linux)
import Publisher
import StreamCore

extension RTMPSink {
    /// An ingest reached over Linux's TCP/TLS (Transport), with the options' CA file and socket send buffer.
    /// - Parameters:
    ///   - url: the ingest URL (without the key).
    ///   - streamKey: the publish name; it never appears in labels or errors.
    ///   - options: client options (timeouts, CA file, send buffer).
    public init(url: IngestURL, streamKey: String, options: RTMPClient.Options = RTMPClient.Options()) {
        self.init(url: url, streamKey: streamKey, options: options, connector: TCPConnector(options: options))
    }
}
#endif
