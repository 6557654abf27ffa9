import Media

/// Where the broadcast's sound comes from: the test tone or captured audio.
///
/// The media loop pulls one buffer per tick (``samplesPerBuffer`` sample frames of 48 kHz stereo Float32, one AAC
/// frame) on its own thread; the source is used from that thread only after creation.
public protocol AudioSource: AnyObject {
    /// Sample frames per buffer (1024, one AAC frame).
    var samplesPerBuffer: Int { get }
    /// The source's buffer pool counters.
    var statistics: PoolStatistics { get }
    /// The buffer for tick `index`: the next captured one, or silence when none is ready; nil when every pooled
    /// buffer is still in use.
    func nextBuffer(index: Int) -> PCMBuffer?
}
