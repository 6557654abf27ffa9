import Engine
import StreamCore
import Testing

/// The RTMP output's socket send buffer: half a second of the stream, within bounds.
struct RTMPSinkTests {
    @Test(arguments: [
        // (video kbps, audio kbps, bytes): (3000 + 128) kbit/s = 391,000 B/s, half of it.
        (3000, 128, 195_500),
        // 1080p60's 7500 + 128 kbit/s.
        (7500, 128, 476_750),
        // A tiny stream still gets 64 KiB (one TCP window's worth).
        (200, 32, 65_536),
        // 100 Mbit/s is capped at 4 MiB.
        (100_000, 320, 4_194_304),
    ])
    func theSendBufferHoldsHalfASecondOfTheStream(video: Int, audio: Int, bytes: Int) {
        var settings = StreamSettings.defaults(for: .p720)
        settings.videoBitrateKbps = video
        settings.audioBitrateKbps = audio
        #expect(RTMPSink.socketSendBufferSize(for: settings) == bytes)
    }
}
