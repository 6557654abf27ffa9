import Capture
#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import StreamCore

/// `stream inputs [--json]`: the audio inputs (PulseAudio sources) and cameras (V4L2) this machine offers.
struct InputsCommand: Command {
    let name = "inputs"
    let summary = "List audio inputs (microphones, output monitors) and cameras, with the ids settings use."
    let discussion = """
        Choose an audio input with `stream settings set audio-input ID` (ID from the first column); app audio
        (`settings set app-audio on`) mixes in the monitor of the default output. Bluetooth inputs are marked.
        Cameras are V4L2 devices (/dev/video*); a Y4M file or pipe can stand in with --camera y4m:PATH.
        The PulseAudio server is $PULSE_SERVER, or the user's default.
        """
    let options: [OptionSpec] = [
        .flag("json", help: "Print one JSON object instead of tables."),
        .value("server", valueName: "ADDRESS", help: "PulseAudio server (default $PULSE_SERVER or the user's)."),
        .value("video-devices", valueName: "DIR", help: "Where to look for video* device nodes (default /dev)."),
    ]

    /// The JSON shape of `--json`.
    struct Listing: Encodable {
        var audioInputs: [AudioInput]
        var systemAudio: String?
        var savedAudioInput: String?
        var audioError: String?
        var cameras: [V4L2DeviceInfo]
    }

    func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        try arguments.requireNoPositionals("inputs")
        let settings = try SettingsCommand.load(context.settingsStore(), context: context)
        let server = arguments.value("server") ?? context.environment["PULSE_SERVER"]
        var audio: AudioInputList?
        var audioError: String?
        do {
            audio = try PulseAudioInputLister.list(server: server)
        } catch {
            audioError = error.message
        }
        let cameras = V4L2DeviceLister.list(directory: arguments.value("video-devices") ?? "/dev")
        if let audio, let saved = settings.audioInputID, !audio.inputs.contains(where: { $0.id == saved }) {
            if let resolution = try? AudioInputResolver.resolve(savedID: saved, inputs: audio.inputs),
               let warning = resolution.warning {
                context.warn(warning)
            }
        }
        if arguments.flag("json") {
            let listing = Listing(audioInputs: audio?.inputs ?? [], systemAudio: audio?.systemAudioID,
                                  savedAudioInput: settings.audioInputID, audioError: audioError, cameras: cameras)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            context.console.print(String(decoding: try encoder.encode(listing), as: UTF8.self))
        } else {
            printAudio(audio, error: audioError, saved: settings.audioInputID, console: context.console)
            printCameras(cameras, console: context.console)
        }
        if let audioError {
            context.console.printError("stream: \(audioError)")
            return ExitCode.failure
        }
        return ExitCode.success
    }

    private func printAudio(_ audio: AudioInputList?, error: String?, saved: String?, console: Console) {
        console.print("Audio inputs:")
        guard let audio else {
            console.print("  unavailable (\(error ?? "no sound server"))")
            return
        }
        if audio.inputs.isEmpty { console.print("  none found") }
        let rows = audio.inputs.map { input -> (String, String) in
            var notes = ["\(input.channels) ch", "\(input.sampleRate) Hz"]
            if input.isMonitor { notes.append("monitor") }
            if input.isBluetooth { notes.append("bluetooth") }
            if input.isDefault { notes.append("default") }
            if input.id == saved { notes.append("saved") }
            return ((input.isDefault ? "* " : "  ") + input.id, "\(input.name) (\(notes.joined(separator: ", ")))")
        }
        for line in HelpFormatter.table(rows) { console.print(line) }
        console.print("System audio (app audio): \(audio.systemAudioID ?? "none (no output device)")")
    }

    private func printCameras(_ cameras: [V4L2DeviceInfo], console: Console) {
        console.print("Cameras:")
        if cameras.isEmpty {
            console.print("  none found (no V4L2 capture devices); --camera y4m:PATH plays a Y4M file or pipe instead")
        }
        for camera in cameras {
            let formats = camera.formats.map { format in
                let sizes = format.sizes.map(\.description)
                return sizes.isEmpty ? format.fourCC : "\(format.fourCC) \(sizes.joined(separator: " "))"
            }
            console.print("  \(camera.path)  \(camera.name) [\(camera.driver)]")
            for line in formats { console.print("      \(line)") }
        }
    }
}
