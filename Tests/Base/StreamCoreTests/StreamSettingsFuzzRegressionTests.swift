import Foundation
import Testing
@testable import StreamCore

/// Inputs found by fuzzing (Fuzz/Sources/FuzzSettings): decoding a stored blob never traps.
struct StreamSettingsFuzzRegressionTests {
    /// `"fps":-33333333333583483333331` is a finite Double that saturates to Int.min; choosing the nearest frame rate
    /// then computed 24 - Int.min and trapped. The fuzzer's input, byte for byte (the unknown keys are ignored).
    static let hugeNegativeFPS = #"{"quality":"4k","fps":-33333333333583483333331,"1pirale":18,"pipScale":0,"pnpu":""}"#

    @Test func aHugeNegativeFPSFallsBackToTheLowestRate() throws {
        let (settings, warnings) = try SettingsStore.decode(Data(Self.hugeNegativeFPS.utf8)).get()
        #expect(settings.frameRate == .fps24)
        #expect(warnings.contains { $0.key == "fps" })
    }

    @Test(arguments: [(Int.min, StreamSettings.FrameRate.fps24), (Int.min + 1, .fps24), (-1, .fps24),
                      (Int.max, .fps60), (1_000_000, .fps60)])
    func extremeRatesPickTheNearestEnd(_ fps: Int, _ expected: StreamSettings.FrameRate) {
        #expect(StreamSettings.FrameRate.nearest(to: fps) == expected)
    }
}
