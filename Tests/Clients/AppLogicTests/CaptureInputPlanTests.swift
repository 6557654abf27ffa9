import AppLogic
import Testing

@Suite struct CaptureInputPlanTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var camera: Bool
        var microphone: Bool
        var present: Set<CaptureInputPlan.Input>
        var remove: [CaptureInputPlan.Input]
        var add: [CaptureInputPlan.Input]
        var run: Bool
        var testDescription: String {
            "camera \(camera), microphone \(microphone), present \(present.map(\.rawValue).sorted())"
        }
    }

    static let cases: [Case] = [
        Case(camera: false, microphone: false, present: [], remove: [], add: [], run: false),
        Case(camera: true, microphone: false, present: [], remove: [], add: [.video], run: true),   // camera first
        Case(camera: true, microphone: true, present: [.video], remove: [], add: [.audio], run: true),
        Case(camera: true, microphone: true, present: [.video, .audio], remove: [], add: [], run: true),
        // The camera off: the microphone keeps the session running.
        Case(camera: false, microphone: true, present: [.video, .audio], remove: [.video], add: [], run: true),
        Case(camera: false, microphone: false, present: [.audio], remove: [.audio], add: [], run: false),
        Case(camera: true, microphone: true, present: [], remove: [], add: [.video, .audio], run: true),  // preview()
    ]

    @Test(arguments: cases)
    func switchesDecideTheInputs(_ expected: Case) {
        let plan = CaptureInputPlan(camera: expected.camera, microphone: expected.microphone,
                                    present: expected.present)
        #expect(plan.remove == expected.remove)
        #expect(plan.add == expected.add)
        #expect(plan.run == expected.run)
    }

    @Test func applyingThePlanLeavesNothingToChange() {
        for camera in [false, true] {
            for microphone in [false, true] {
                for present in [Set<CaptureInputPlan.Input>(), [.video], [.audio], [.video, .audio]] {
                    let plan = CaptureInputPlan(camera: camera, microphone: microphone, present: present)
                    let after = present.subtracting(plan.remove).union(plan.add)
                    let again = CaptureInputPlan(camera: camera, microphone: microphone, present: after)
                    #expect(again.remove.isEmpty && again.add.isEmpty, "\(camera) \(microphone) \(present)")
                    #expect(again.run == plan.run)
                }
            }
        }
    }
}
