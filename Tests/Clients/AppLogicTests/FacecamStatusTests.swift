import Testing
import AppLogic

@Suite struct FacecamStatusTests {
    @Test(arguments: CameraAuthorization.allCases)
    func pipOffIsNeutralWhateverTheDevice(_ authorization: CameraAuthorization) {
        for supported in [true, false] {
            let status = FacecamStatus(pipEnabled: false, multitaskingCameraAccessSupported: supported,
                                       authorization: authorization, isSimulator: false)
            #expect(status.tone == .neutral)
        }
    }

    @Test func supportedAndAuthorizedIsReady() {
        let status = FacecamStatus(pipEnabled: true, multitaskingCameraAccessSupported: true,
                                   authorization: .authorized, isSimulator: false)
        #expect(status.text == "Facecam ready")
        #expect(status.tone == .ready)
    }

    @Test(arguments: [
        // (supported, authorization, simulator, words the warning must contain)
        (false, CameraAuthorization.authorized, false, "multitasking camera access"),
        (true, .denied, false, "denied"),
        (true, .restricted, false, "restricted"),
        (true, .notDetermined, false, "not granted"),
        (true, .authorized, true, "Simulator"),
        (false, .denied, false, "denied"),
    ])
    func everyOtherCaseIsAnOrangeWarning(_ supported: Bool, _ authorization: CameraAuthorization, _ simulator: Bool,
                                         _ words: String) {
        let status = FacecamStatus(pipEnabled: true, multitaskingCameraAccessSupported: supported,
                                   authorization: authorization, isSimulator: simulator)
        #expect(status.tone == .warning)
        #expect(status.text.contains(words))
    }

    @Test func unsupportedDeviceSaysTheStreamFallsBackToScreenOnly() {
        let status = FacecamStatus(pipEnabled: true, multitaskingCameraAccessSupported: false,
                                   authorization: .authorized, isSimulator: false)
        #expect(status.text.contains("screen only"))
    }

    @Test(arguments: [
        (true, CameraAuthorization.notDetermined, true),
        (true, .authorized, false),
        (true, .denied, false),
        (true, .restricted, false),
        (false, .notDetermined, false),
    ])
    func turningPiPOnAsksOnlyWhenNeverAsked(_ pip: Bool, _ authorization: CameraAuthorization, _ expected: Bool) {
        #expect(FacecamStatus.shouldRequestCameraAccess(pipEnabled: pip, authorization: authorization) == expected)
    }
}
