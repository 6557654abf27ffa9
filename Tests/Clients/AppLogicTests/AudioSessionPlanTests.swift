import Testing
import AppLogic

@Suite struct AudioSessionPlanTests {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "refused" }
    }

    @Test(arguments: [
        (true, [[.allowBluetoothHFP, .bluetoothHighQualityRecording], .allowBluetoothHFP, []] as [AudioSessionOptions]),
        (false, [.allowBluetoothHFP, []] as [AudioSessionOptions]),
    ])
    func ladderDependsOnWhatTheOSOffers(_ highQuality: Bool, _ expected: [AudioSessionOptions]) {
        let plan = AudioSessionPlan(capabilities: .init(hasBluetoothHighQualityRecording: highQuality))
        #expect(plan.ladder == expected)
        #expect(plan.category == .playAndRecord)
        #expect(plan.mode == .default)
    }

    @Test(arguments: [true, false])
    func ladderNeverUsesA2DPAndEndsWithThePlainCategory(_ highQuality: Bool) {
        let plan = AudioSessionPlan(capabilities: .init(hasBluetoothHighQualityRecording: highQuality))
        #expect(plan.ladder.allSatisfy { !$0.contains(.allowBluetoothA2DP) })
        #expect(plan.ladder.last == [])
        #expect(plan.ladder.dropLast().allSatisfy { $0.contains(.allowBluetoothHFP) })
    }

    @Test(arguments: [
        // (options the session accepts, expected applied, expected refusal count)
        ([[.allowBluetoothHFP, .bluetoothHighQualityRecording], .allowBluetoothHFP, []] as [AudioSessionOptions],
         [.allowBluetoothHFP, .bluetoothHighQualityRecording] as AudioSessionOptions?, 0),
        ([.allowBluetoothHFP, []], .allowBluetoothHFP, 1),
        ([[]], [], 2),
        ([], nil, 3),
    ] as [([AudioSessionOptions], AudioSessionOptions?, Int)])
    func applyStopsAtTheFirstAcceptedRung(_ accepted: [AudioSessionOptions], _ expected: AudioSessionOptions?,
                                          _ refusals: Int) {
        let plan = AudioSessionPlan(capabilities: .init(hasBluetoothHighQualityRecording: true))
        var tried: [AudioSessionOptions] = []
        let outcome = plan.apply { options in
            tried.append(options)
            guard accepted.contains(options) else { throw Refused() }
        }
        #expect(outcome.applied == expected)
        #expect(outcome.refusals.count == refusals)
        #expect(tried == Array(plan.ladder.prefix(refusals + (expected == nil ? 0 : 1))))
        #expect(outcome.allowsBluetoothInput == (expected?.contains(.allowBluetoothHFP) ?? false))
    }

    @Test func refusalsNameTheRungAndTheReason() {
        let plan = AudioSessionPlan(capabilities: .init(hasBluetoothHighQualityRecording: false))
        let outcome = plan.apply { options in
            if !options.isEmpty { throw Refused() }
        }
        #expect(outcome.applied == [])
        #expect(outcome.refusals == ["[allowBluetoothHFP]: refused"])
    }
}
