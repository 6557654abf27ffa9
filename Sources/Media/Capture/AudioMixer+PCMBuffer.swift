import Media

/// The mixer fed and drained with Media's pooled PCM buffers (the PulseAudio capture's format).
extension AudioMixer {
    /// Queues a PCM buffer (Float32 or Int16) for `input`.
    /// - Precondition: the buffer has ``channels`` channels.
    public mutating func append(_ buffer: PCMBuffer, toInput input: Int) {
        precondition(buffer.format.channels == channels, "a \(buffer.format) buffer fed to a \(channels)-channel mixer")
        let count = buffer.frameCount * channels
        buffer.withUnsafeBytes { bytes in
            switch buffer.format.sampleFormat {
            case .float32:
                append(UnsafeBufferPointer(start: bytes.bindMemory(to: Float.self).baseAddress, count: count),
                       toInput: input)
            case .int16:
                let converted = bytes.bindMemory(to: Int16.self).prefix(count).map { Float($0) / 32_768 }
                append(converted, toInput: input)
            }
        }
    }

    /// Mixes one Float32 buffer's worth of sample frames into `buffer` if the inputs allow it.
    /// - Returns: false when not enough audio is queued yet.
    /// - Precondition: `buffer` is Float32 with ``channels`` channels and uniquely referenced.
    public mutating func mix(into buffer: inout PCMBuffer) -> Bool {
        precondition(buffer.format.sampleFormat == .float32 && buffer.format.channels == channels,
                     "mixing into a \(buffer.format) buffer; the mixer makes f32 with \(channels) channels")
        let count = buffer.frameCount * channels
        return buffer.withUnsafeMutableBytes { bytes in
            let floats = bytes.bindMemory(to: Float.self)
            return mix(into: UnsafeMutableBufferPointer(rebasing: floats[0..<count]))
        }
    }
}
