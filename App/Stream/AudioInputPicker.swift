import AppLogic
import SwiftUI

/// Lists the audio session's inputs (Bluetooth first) and saves the chosen input's uid into the settings.
struct AudioInputPicker: View {
    @Binding var selectedID: String?
    @State private var inputs: [AudioSessionInput] = []
    @State private var problem: String?

    private var selection: AudioInputSelection {
        AudioInputSelection(savedID: selectedID, available: inputs)
    }

    var body: some View {
        List {
            Section {
                row(title: "Default microphone", isSelected: selectedID == nil) { choose(nil) }
                ForEach(inputs) { input in
                    row(title: input.name, detail: input.isBluetooth ? "Bluetooth" : nil,
                        isSelected: input.id == selectedID) { choose(input) }
                }
            } footer: {
                Text(problem ?? selection.statusText)
            }
        }
        .navigationTitle("Audio Input")
        .task { refresh() }
        .refreshable { refresh() }
    }

    private func row(title: String, detail: String? = nil, isSelected: Bool,
                     action: @escaping () -> Void) -> some View {
        Button(action: action) {
            HStack {
                Text(title)
                if let detail { Text(detail).foregroundStyle(.secondary) }
                Spacer()
                if isSelected { Image(systemName: "checkmark") }
            }
        }
    }

    private func choose(_ input: AudioSessionInput?) {
        selectedID = input?.id
        AudioSessionConfigurator.applyPreferredInput(savedID: selectedID)
    }

    /// `availableInputs` lists Bluetooth mics only after a record-capable category with the HFP option is active.
    private func refresh() {
        do {
            let outcome = try AudioSessionConfigurator.activate()
            problem = outcome.allowsBluetoothInput ? nil : "Bluetooth microphones are unavailable on this device."
        } catch {
            problem = "The audio session could not start: \(error.localizedDescription)"
        }
        inputs = AudioInputSelection.pickerOrder(AudioSessionConfigurator.availableInputs())
    }
}
