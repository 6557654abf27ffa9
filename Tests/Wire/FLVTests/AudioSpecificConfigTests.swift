import Testing
@testable import FLV

@Suite struct AudioSpecificConfigTests {
    @Test(arguments: [
        // 00010 (AAC-LC) 0011 (48000) 0010 (stereo) 000 (GASpecificConfig)
        ([UInt8(0x11), 0x90], 48000, UInt8(2)),
        // 00010 (AAC-LC) 0100 (44100) 0010 (stereo) 000
        ([0x12, 0x10], 44100, 2),
        // 00010 (AAC-LC) 0011 (48000) 0001 (mono) 000
        ([0x11, 0x88], 48000, 1),
        // 00010 (AAC-LC) 1011 (8000) 0001 (mono) 000
        ([0x15, 0x88], 8000, 1),
    ])
    func commonRates(bytes: [UInt8], sampleRate: Int, channels: UInt8) throws {
        let config = AudioSpecificConfig(sampleRate: sampleRate, channelConfiguration: channels)
        #expect(config.encode() == bytes)
        #expect(try AudioSpecificConfig(parsing: bytes) == config)
    }

    /// Bits: 00010 (AAC-LC) 1111 (escape) 0000 0000 0111 1101 0000 0001 (32001 Hz) 0010 (stereo) 000, pad 0.
    static let escapedRate: [UInt8] = [
        0x17,  // 00010 111: object type 2, frequency index bits 3...1
        0x80,  // 1 0000000: frequency index bit 0, rate bits 23...17
        0x3E,  // 00111110: rate bits 16...9
        0x80,  // 10000000: rate bits 8...1
        0x90,  // 1 0010 000: rate bit 0, channel configuration 2, GASpecificConfig 000
    ]

    @Test func unlistedRateUsesTheEscape() throws {
        let config = AudioSpecificConfig(sampleRate: 32001, channelConfiguration: 2)
        #expect(config.samplingFrequencyIndex == 15)
        #expect(config.encode() == Self.escapedRate)
        #expect(try AudioSpecificConfig(parsing: Self.escapedRate) == config)
    }

    @Test func escapedListedRateIsUnderstood() throws {
        // As above with rate 32000 (0x007D00): a writer may escape a rate that has an index.
        let bytes: [UInt8] = [0x17, 0x80, 0x3E, 0x80, 0x10]
        let config = try AudioSpecificConfig(parsing: bytes)
        #expect(config == AudioSpecificConfig(sampleRate: 32000, channelConfiguration: 2))
        #expect(config.encode() == [0x12, 0x90])  // 00010 0101 (index 5 = 32000) 0010 000
    }

    @Test func escapedObjectTypeRoundTrips() throws {
        let config = AudioSpecificConfig(objectType: 42, sampleRate: 48000, channelConfiguration: 2)
        let bytes = config.encode()
        #expect(bytes.first.map { $0 >> 3 } == 31)  // audioObjectType escape
        #expect(try AudioSpecificConfig(parsing: bytes) == config)
    }

    @Test func outOfRangeObjectTypesAreClampedNotTrapped() throws {
        let cases: [(UInt8, UInt8)] = [(0, 1), (31, 32), (96, 95), (255, 95)]  // given, encoded
        for (given, encoded) in cases {
            let bytes = AudioSpecificConfig(objectType: given, sampleRate: 48000, channelConfiguration: 2).encode()
            #expect(try AudioSpecificConfig(parsing: bytes).objectType == encoded)
        }
    }

    @Test func rejectsMalformedConfigs() {
        let cases: [[UInt8]] = [
            [],                          // empty
            [0x11],                      // cut inside the frequency index
            [0x00, 0x10],                // object type 0
            [0x16, 0x90],                // frequency index 13 (reserved)
            [0x17, 0x80, 0x00],          // cut inside the explicit frequency
            [0x17, 0x80, 0x00, 0x00, 0x10],  // explicit frequency 0 Hz
            [0xF8],                      // object type escape cut short
        ]
        for bytes in cases {
            let error = #expect(throws: FLVError.self) { try AudioSpecificConfig(parsing: bytes) }
            #expect(error?.code == .invalidAudioSpecificConfig, "\(bytes)")
        }
    }
}
