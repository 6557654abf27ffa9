import Testing
import AppLogic

@Suite struct AudioInputSelectionTests {
    static let builtIn = AudioSessionInput(id: "Built-In Microphone", name: "iPhone Microphone", portType: "MicrophoneBuiltIn")
    static let dji = AudioSessionInput(id: "AA:BB:CC:DD:EE:FF-tacl", name: "DJI Mic 2", portType: "BluetoothHFP")
    static let usb = AudioSessionInput(id: "usb-1", name: "A USB Mic", portType: "USBAudio")

    @Test func nothingSavedUsesTheSystemDefault() {
        let selection = AudioInputSelection(savedID: nil, available: [Self.builtIn, Self.dji])
        #expect(selection == .systemDefault)
        #expect(selection.preferredInput == nil)
        #expect(selection.statusText == "Using the default microphone.")
    }

    @Test func aConnectedSavedInputIsPreferred() {
        let selection = AudioInputSelection(savedID: Self.dji.id, available: [Self.builtIn, Self.dji])
        #expect(selection == .preferred(Self.dji))
        #expect(selection.preferredInput == Self.dji)
        #expect(selection.statusText.contains("DJI Mic 2"))
        #expect(selection.statusText.contains("telephony quality"))
    }

    @Test func aWiredSavedInputHasNoBluetoothCaveat() {
        let selection = AudioInputSelection(savedID: Self.usb.id, available: [Self.usb])
        #expect(selection.statusText == "Using A USB Mic.")
    }

    @Test func aDisconnectedSavedInputFallsBackButIsKept() {
        let selection = AudioInputSelection(savedID: Self.dji.id, available: [Self.builtIn])
        #expect(selection == .missing(savedID: Self.dji.id))
        #expect(selection.preferredInput == nil)
        #expect(selection.statusText.contains("not connected"))
    }

    @Test func pickerListsBluetoothFirstThenByName() {
        let second = AudioSessionInput(id: "b2", name: "AirPods", portType: "BluetoothHFP")
        let order = AudioInputSelection.pickerOrder([Self.builtIn, Self.usb, Self.dji, second])
        #expect(order == [second, Self.dji, Self.usb, Self.builtIn])
    }

    @Test func pickerKeepsTheOrderOfSameNamedInputs() {
        let first = AudioSessionInput(id: "1", name: "Mic", portType: "USBAudio")
        let second = AudioSessionInput(id: "2", name: "Mic", portType: "USBAudio")
        #expect(AudioInputSelection.pickerOrder([first, second]) == [first, second])
        #expect(AudioInputSelection.pickerOrder([second, first]) == [second, first])
    }
}
