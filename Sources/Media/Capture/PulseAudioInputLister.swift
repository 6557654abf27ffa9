#if canImport(CPulse)
import CPulse

/// Lists the PulseAudio sources (microphones and output monitors) with stable ids.
public enum PulseAudioInputLister {
    /// Asks the server for its sources, its default source and its default sink.
    /// - Parameter server: the server address (e.g. `unix:/run/user/1000/pulse/native`); nil for the default.
    /// - Returns: the inputs, with the default marked, and the default sink's monitor as the system-audio input.
    /// - Throws: ``CaptureError`` when the server cannot be reached.
    public static func list(server: String? = nil) throws(CaptureError) -> AudioInputList {
        let connection = try PulseAudioConnection(server: server)
        let collector = Collector(mainloop: connection.mainloop)
        let userdata = Unmanaged.passUnretained(collector).toOpaque()
        try connection.locked { () throws(CaptureError) in
            try connection.wait(for: pa_context_get_server_info(connection.context, { _, info, userdata in
                guard let userdata else { return }
                let collector = Unmanaged<Collector>.fromOpaque(userdata).takeUnretainedValue()
                if let info {
                    collector.defaultSource = info.pointee.default_source_name.map { String(cString: $0) }
                    collector.defaultSink = info.pointee.default_sink_name.map { String(cString: $0) }
                }
                pa_threaded_mainloop_signal(collector.mainloop, 0)
            }, userdata), "describe the server")
            try connection.wait(for: pa_context_get_source_info_list(connection.context, { _, info, end, userdata in
                guard let userdata else { return }
                let collector = Unmanaged<Collector>.fromOpaque(userdata).takeUnretainedValue()
                if end == 0, let info { collector.add(info.pointee) }
                pa_threaded_mainloop_signal(collector.mainloop, 0)
            }, userdata), "list the audio inputs")
        }
        return withExtendedLifetime(collector) { collector.result() }
    }

    /// Gathers callback results; only touched with the mainloop lock held (callbacks run under it).
    private final class Collector {
        let mainloop: OpaquePointer
        var defaultSource: String?
        var defaultSink: String?
        var sources: [(name: String, description: String, bus: String?, channels: Int, rate: Int, monitor: Bool,
                       monitorOfSink: String?)] = []

        init(mainloop: OpaquePointer) { self.mainloop = mainloop }

        func add(_ info: pa_source_info) {
            guard let name = info.name.map({ String(cString: $0) }) else { return }
            let description = info.description.map { String(cString: $0) } ?? name
            let bus = pa_proplist_gets(info.proplist, "device.bus").map { String(cString: $0) }
            let isMonitor = info.monitor_of_sink != UInt32.max
            let sinkName = info.monitor_of_sink_name.map { String(cString: $0) }
            sources.append((name, description, bus, Int(info.sample_spec.channels), Int(info.sample_spec.rate),
                            isMonitor, sinkName))
        }

        func result() -> AudioInputList {
            let inputs = sources.map {
                AudioInput(id: $0.name, name: $0.description,
                           isBluetooth: AudioInput.isBluetooth(name: $0.name, deviceBus: $0.bus),
                           channels: $0.channels, sampleRate: $0.rate, isMonitor: $0.monitor,
                           isDefault: $0.name == defaultSource)
            }
            let systemAudio = defaultSink.flatMap { sink in
                sources.first(where: { $0.monitor && $0.monitorOfSink == sink })?.name
            }
            return AudioInputList(inputs: inputs, systemAudioID: systemAudio)
        }
    }
}
#endif
