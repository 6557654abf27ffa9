/// Where each ReplayKit buffer goes, as a pure function of its kind, the settings and the session's state.
public struct SampleRouting: Sendable, Hashable {
    /// The source of an audio buffer in the mix.
    public enum AudioSource: String, Sendable, Hashable, CaseIterable {
        /// The captured apps' audio.
        case app
        /// The microphone.
        case microphone
    }

    /// What to do with a buffer.
    public enum Route: Sendable, Hashable {
        /// Composite the screen frame with the latest camera frame (and rotate it to the locked orientation).
        case composite
        /// Hand the screen frame to the encoder as it is: no copy, the encoder scales it to the locked size.
        case passthrough
        /// Convert the audio to the mix format and add it to the mix.
        case mix(AudioSource)
        /// Ignore the buffer.
        case drop(DropReason)
    }

    /// Why a buffer is ignored.
    public enum DropReason: String, Sendable, Hashable {
        /// The broadcast is paused (`broadcastPaused`).
        case paused
        /// The broadcast finished or failed; the buffer arrived late.
        case finished
        /// App audio is off in the settings.
        case appAudioOff
        /// The settings choose the system audio alone (the seed's `useMic` off).
        case microphoneOff
        /// The frame came sooner than the frame rate allows (see `FrameRateGate`).
        case aboveFrameRate
    }

    /// The session's phase as the router sees it.
    public enum Phase: Sendable, Hashable {
        /// Buffers flow.
        case running
        /// `broadcastPaused` until `broadcastResumed`.
        case paused
        /// After `broadcastFinished` or a failure.
        case finished
    }

    /// Whether app audio is mixed in (`StreamSettings.includeAppAudio`).
    public var includeAppAudio: Bool
    /// Whether the microphone is mixed in (`StreamSettings.capturesMicrophone`).
    public var includeMicrophone: Bool
    /// Whether the camera delivers frames now (started and not interrupted).
    public var facecamActive: Bool
    /// Whether screen frames need rotating into the locked orientation (see `EncodeSizeLock.needsRotation`).
    public var needsRotation: Bool
    /// The session's phase.
    public var phase: Phase

    /// Creates routing rules.
    /// - Parameters:
    ///   - includeAppAudio: the app-audio setting.
    ///   - includeMicrophone: false when the settings choose the system audio alone.
    ///   - facecamActive: whether camera frames are arriving.
    ///   - needsRotation: whether the screen frames are not upright for the locked size.
    ///   - phase: running, paused or finished.
    public init(includeAppAudio: Bool, includeMicrophone: Bool = true, facecamActive: Bool = false,
                needsRotation: Bool = false, phase: Phase = .running) {
        self.includeAppAudio = includeAppAudio
        self.includeMicrophone = includeMicrophone
        self.facecamActive = facecamActive
        self.needsRotation = needsRotation
        self.phase = phase
    }

    /// The route of one buffer.
    /// - Parameter kind: the buffer's ReplayKit type.
    public func route(_ kind: SampleBufferKind) -> Route {
        switch phase {
        case .paused: return .drop(.paused)
        case .finished: return .drop(.finished)
        case .running: break
        }
        switch kind {
        case .video:
            return facecamActive || needsRotation ? .composite : .passthrough
        case .audioApp:
            return includeAppAudio ? .mix(.app) : .drop(.appAudioOff)
        case .audioMic:
            return includeMicrophone ? .mix(.microphone) : .drop(.microphoneOff)
        }
    }

    /// The audio sources whose buffers are awaited in the mix: the microphone unless the system audio alone is
    /// chosen (when the user enabled it in the picker, its buffers come), the app when its audio is on.
    public var mixedSources: Set<AudioSource> {
        Set(mixerInputs)
    }

    /// The inputs of the engine's `AudioMixer`, in order: the microphone (unless off), then the app when its audio
    /// is on.
    public var mixerInputs: [AudioSource] {
        (includeMicrophone ? [.microphone] : []) + (includeAppAudio ? [.app] : [])
    }

    /// The mixer input a source's buffers go to, or nil when the source is not mixed.
    /// - Parameter source: where the buffer came from.
    public func mixerInput(of source: AudioSource) -> Int? {
        mixerInputs.firstIndex(of: source)
    }
}
