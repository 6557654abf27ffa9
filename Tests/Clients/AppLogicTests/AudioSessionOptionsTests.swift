import Testing
import AppLogic

@Suite struct AudioSessionOptionsTests {
    @Test(arguments: [
        (AudioSessionOptions(), "[]"),
        (.allowBluetoothHFP, "[allowBluetoothHFP]"),
        ([.allowBluetoothHFP, .bluetoothHighQualityRecording], "[allowBluetoothHFP, bluetoothHighQualityRecording]"),
        (.allowBluetoothA2DP, "[allowBluetoothA2DP]"),
    ] as [(AudioSessionOptions, String)])
    func descriptionNamesEachOption(_ options: AudioSessionOptions, _ expected: String) {
        #expect(options.description == expected)
    }

    @Test func optionsAreDistinctBits() {
        let all: [AudioSessionOptions] = [.allowBluetoothHFP, .bluetoothHighQualityRecording, .allowBluetoothA2DP]
        for (index, option) in all.enumerated() {
            for other in all[(index + 1)...] {
                #expect(option.intersection(other).isEmpty)
            }
        }
    }
}
