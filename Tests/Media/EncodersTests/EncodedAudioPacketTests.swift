import Encoders
import Testing

@Suite struct EncodedAudioPacketTests {
    @Test(arguments: [
        (Int64(0), 48000, Int64(0)),
        (Int64(1024), 48000, Int64(21)),      // 21.33 ms rounds down
        (Int64(-1024), 48000, Int64(-22)),    // priming frame: -21.33 ms rounds down too
        (Int64(48000), 48000, Int64(1000)),
        (Int64(44100 * 3600), 44100, Int64(3_600_000)),
    ])
    func millisecondsRoundTowardMinusInfinity(pts: Int64, sampleRate: Int, milliseconds: Int64) {
        let packet = EncodedAudioPacket(data: [], pts: pts, duration: 1024, sampleRate: sampleRate)
        #expect(packet.ptsMilliseconds == milliseconds)
    }
}
