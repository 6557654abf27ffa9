import Testing
import AppLogic

@Suite struct FacecamPlanTests {
    @Test(arguments: [true, false])
    func startsOnlyWithPiPPermissionAndMultitaskingAccess(_ front: Bool) {
        let plan = FacecamPlan(pipEnabled: true, front: front, multitaskingCameraAccessSupported: true,
                               authorization: .authorized)
        #expect(plan == .startCamera(position: front ? .front : .back))
        #expect(plan.startsCamera)
    }

    @Test(arguments: [
        // (pip, supported, authorization, words of the reason)
        (false, true, CameraAuthorization.authorized, "off"),
        (true, false, .authorized, "multitasking"),
        (true, true, .denied, "denied"),
        (true, true, .notDetermined, "notDetermined"),
        (true, true, .restricted, "restricted"),
    ])
    func otherwiseScreenOnly(_ pip: Bool, _ supported: Bool, _ authorization: CameraAuthorization, _ words: String) {
        let plan = FacecamPlan(pipEnabled: pip, front: true, multitaskingCameraAccessSupported: supported,
                               authorization: authorization)
        #expect(!plan.startsCamera)
        guard case .screenOnly(let reason) = plan else {
            Issue.record("expected screen only, got \(plan)")
            return
        }
        #expect(reason.contains(words))
    }
}
