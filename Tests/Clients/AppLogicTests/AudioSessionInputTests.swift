import Testing
import AppLogic

@Suite struct AudioSessionInputTests {
    @Test(arguments: [
        ("BluetoothHFP", true),
        ("BluetoothLE", true),
        ("BluetoothA2DPOutput", true),
        ("MicrophoneBuiltIn", false),
        ("MicrophoneWired", false),
        ("USBAudio", false),
    ])
    func bluetoothIsTheBluetoothPortFamily(_ portType: String, _ expected: Bool) {
        #expect(AudioSessionInput(id: "x", name: "x", portType: portType).isBluetooth == expected)
    }
}
