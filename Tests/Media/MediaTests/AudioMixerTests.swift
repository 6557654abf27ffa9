import Media
import Foundation
import TestSupport
import Testing

@Suite struct AudioMixerTests {
    static func tone(_ frequency: Double, frames: Int, amplitude: Float = 0.5, start: Int = 0) -> [Float] {
        (start..<(start + frames)).flatMap { index -> [Float] in
            let value = amplitude * Float(sin(2 * Double.pi * frequency * Double(index) / 48_000))
            return [value, value]
        }
    }

    @Test func keepsBothTonesAudible() throws {
        var mixer = AudioMixer(inputCount: 2)
        var mixed: [Float] = []
        for block in 0..<20 {
            mixer.append(Self.tone(440, frames: 960, start: block * 960), toInput: 0)
            mixer.append(Self.tone(1000, frames: 960, start: block * 960), toInput: 1)
            while let output = mixer.mix(frames: 1024) { mixed += output }
        }
        let left = ToneAnalysis.left(mixed)
        #expect(left.count >= 17 * 1024)
        let between = ToneAnalysis.power(at: 700, in: left)
        #expect(ToneAnalysis.power(at: 440, in: left) > 50 * between)
        #expect(ToneAnalysis.power(at: 1000, in: left) > 50 * between)
        #expect(left.allSatisfy { abs($0) < 1 })
        #expect(mixer.droppedFrames == [0, 0] && mixer.paddedFrames == [0, 0])
    }

    @Test func loudSumsAreLimitedWithoutWrapping() throws {
        var mixer = AudioMixer(inputCount: 2)
        mixer.append([Float](repeating: 0.9, count: 200) + [Float](repeating: -0.9, count: 200), toInput: 0)
        mixer.append([Float](repeating: 0.9, count: 200) + [Float](repeating: -0.9, count: 200), toInput: 1)
        let mixedOutput = mixer.mix(frames: 200)
        let output = try #require(mixedOutput)
        #expect(output.prefix(200).allSatisfy { $0 > 0.8 && $0 < 1 })
        #expect(output.suffix(200).allSatisfy { $0 < -0.8 && $0 > -1 })
    }

    @Test(arguments: [Float(-3), -1.6, -0.81, -0.8, -0.3, 0, 0.5, 0.8, 0.9, 1.2, 2, 10])
    func limiterIsBoundedAndIdentityBelowTheThreshold(sample: Float) {
        let limited = AudioMixer.limit(sample)
        #expect(abs(limited) < 1)
        if abs(sample) <= AudioMixer.limiterThreshold { #expect(limited == sample) }
        #expect(limited.sign == sample.sign || sample == 0)
        // Monotonic: a louder input never comes out quieter.
        #expect(abs(AudioMixer.limit(sample * 1.1)) >= abs(limited))
    }

    @Test func waitsForALateInputThenMixesWhatIsThere() throws {
        var mixer = AudioMixer(inputCount: 2, capacityFrames: 4_800, maximumLagFrames: 960)
        mixer.append([Float](repeating: 0.25, count: 480 * 2), toInput: 0)
        #expect(mixer.mix(frames: 480) == nil)   // input 1 has nothing yet: wait
        mixer.append([Float](repeating: 0.25, count: 480 * 2), toInput: 0)
        // Input 0 is now a full lag ahead: mix its audio with silence for the stalled input.
        let mixedOutput = mixer.mix(frames: 480)
        let output = try #require(mixedOutput)
        #expect(output.allSatisfy { $0 == 0.25 })
        #expect(mixer.paddedFrames == [0, 480])
        mixer.append([Float](repeating: 0.5, count: 100 * 2), toInput: 1)
        mixer.append([Float](repeating: 0.25, count: 480 * 2), toInput: 0)
        let mixedPartial = mixer.mix(frames: 480)
        let partial = try #require(mixedPartial)
        #expect(partial.prefix(200).allSatisfy { $0 == 0.75 })   // both inputs where input 1 had samples
        #expect(partial.suffix(760).allSatisfy { $0 == 0.25 })   // the rest padded
    }

    @Test func fullQueuesDropTheOldestSamples() throws {
        var mixer = AudioMixer(inputCount: 1, capacityFrames: 1_000, maximumLagFrames: 500)
        mixer.append([Float](repeating: 0.1, count: 800 * 2), toInput: 0)
        mixer.append([Float](repeating: 0.2, count: 800 * 2), toInput: 0)
        #expect(mixer.availableFrames(input: 0) == 1_000)
        #expect(mixer.droppedFrames == [600])
        let mixedOutput = mixer.mix(frames: 1_000)
        let output = try #require(mixedOutput)
        #expect(output.prefix(400).allSatisfy { $0 == 0.1 })
        #expect(output.suffix(1_600).allSatisfy { $0 == 0.2 })
    }

    @Test func aSilentInputCostsAtMostTheLagAndTheQueueStaysBounded() throws {
        // The iOS case: app audio on, the microphone off in the broadcast picker (its buffers never come).
        var mixer = AudioMixer(inputCount: 2, capacityFrames: 4_800, maximumLagFrames: 960)
        var mixed = 0
        for _ in 0..<100 {
            mixer.append([Float](repeating: 0.1, count: 1024 * 2), toInput: 0)
            while let output = mixer.mix(frames: 1024) {
                mixed += output.count / 2
                #expect(output.allSatisfy { $0 == 0.1 })
            }
            #expect(mixer.availableFrames(input: 0) <= 960 + 1024)
        }
        #expect(mixed >= 100 * 1024 - 960 - 1024)
    }
}
