/// libx264-specific knobs, on top of the platform-neutral `VideoEncoderConfiguration`.
///
/// The defaults are the live-streaming choices: `veryfast` keeps 720p30 well under one core; `zerolatency` turns
/// off B-frames, frame-threading and lookahead so a picture comes out as soon as it goes in (x264 then threads by
/// slices, which adds no delay); `high` is what every ingest and player decodes.
public struct X264Options: Sendable, Hashable {
    /// x264 speed preset: `ultrafast`, `superfast`, `veryfast`, `faster`, `fast`, `medium`, ...
    public var preset: String
    /// x264 tune, or nil for none. `zerolatency` is required for one-in-one-out live encoding.
    public var tune: String?
    /// H.264 profile cap: `baseline`, `main` or `high`.
    public var profile: String
    /// Encoder threads (slices under `zerolatency`); 0 lets x264 pick 1.5x the core count. The default of 2 leaves
    /// the rest of a small machine to capture, audio and networking.
    public var threads: Int

    /// Creates options.
    /// - Parameters:
    ///   - preset: speed preset (default `veryfast`).
    ///   - tune: tune (default `zerolatency`).
    ///   - profile: profile (default `high`).
    ///   - threads: thread count, 0 for automatic (default 2).
    public init(preset: String = "veryfast", tune: String? = "zerolatency", profile: String = "high",
                threads: Int = 2) {
        self.preset = preset
        self.tune = tune
        self.profile = profile
        self.threads = threads
    }
}
