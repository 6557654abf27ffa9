import Capture
import Testing

@Suite struct AudioInputResolverTests {
    static let mic = AudioInput(id: "alsa_input.usb-mic", name: "USB Microphone", channels: 1, sampleRate: 44_100,
                                isDefault: false)
    static let headset = AudioInput(id: "bluez_input.00_11_22", name: "Headset", isBluetooth: true, channels: 1,
                                    sampleRate: 16_000, isDefault: true)
    static let monitor = AudioInput(id: "alsa_output.pci.monitor", name: "Monitor of Speakers", isMonitor: true)

    @Test func savedInputThatIsPresentWins() throws {
        let resolution = try AudioInputResolver.resolve(savedID: "alsa_input.usb-mic",
                                                        inputs: [Self.monitor, Self.headset, Self.mic])
        #expect(resolution.input == Self.mic)
        #expect(resolution.warning == nil)
    }

    @Test func nothingSavedUsesTheDefaultWithoutWarning() throws {
        let resolution = try AudioInputResolver.resolve(savedID: nil, inputs: [Self.mic, Self.headset])
        #expect(resolution.input == Self.headset)
        #expect(resolution.warning == nil)
    }

    @Test func missingSavedInputFallsBackToTheDefaultWithAWarning() throws {
        let resolution = try AudioInputResolver.resolve(savedID: "gone", inputs: [Self.mic, Self.headset])
        #expect(resolution.input == Self.headset)
        #expect(resolution.warning == "audio input 'gone' is not available; using the default input 'Headset'")
    }

    @Test func withoutAMarkedDefaultAMicrophoneIsPreferredToAMonitor() throws {
        let resolution = try AudioInputResolver.resolve(savedID: "gone", inputs: [Self.monitor, Self.mic])
        #expect(resolution.input == Self.mic)
        #expect(resolution.warning != nil)
        let onlyMonitor = try AudioInputResolver.resolve(savedID: nil, inputs: [Self.monitor])
        #expect(onlyMonitor.input == Self.monitor)
    }

    @Test(arguments: [nil, "alsa_input.usb-mic"] as [String?])
    func noInputsAtAllIsAnError(savedID: String?) {
        let error = #expect(throws: CaptureError.self) {
            try AudioInputResolver.resolve(savedID: savedID, inputs: [])
        }
        #expect(error?.message.hasPrefix("no audio input is available") == true)
    }

    @Test(arguments: [
        ("bluez_input.00_1B_66.a2dp", nil, true),
        ("alsa_input.usb", "bluetooth", true),
        ("alsa_input.usb", "usb", false),
        ("alsa_input.pci", nil, false),
    ] as [(String, String?, Bool)])
    func bluetoothDetection(name: String, bus: String?, expected: Bool) {
        #expect(AudioInput.isBluetooth(name: name, deviceBus: bus) == expected)
    }
}
