import Foundation
import Locking

/// A private PulseAudio server for audio-capture tests: its own runtime directory and socket, null sinks as
/// outputs (their monitors are capture sources), and `paplay` to play tones into them.
public final class PulseAudioDaemon: Sendable {
    private let daemon: BackgroundProcess
    private let players = Locked<[BackgroundProcess]>([])
    /// The runtime directory (HOME and XDG_RUNTIME_DIR of the daemon).
    public let directory: TemporaryDirectory
    /// The server address for clients, `unix:PATH`.
    public let server: String
    /// The null sinks, in load order (the first is the default output).
    public let sinks: [String]

    /// Starts `pulseaudio` with one null sink per name; `sink=rate` pairs pick the sink's sample rate.
    /// - Throws: when pulseaudio is not installed or its socket does not answer within 10 s.
    public init(sinks: [(name: String, rate: Int)]) throws {
        directory = try TemporaryDirectory("pulse")
        chmod(directory.path, 0o700)
        let socket = directory.file("native")
        server = "unix:\(socket)"
        self.sinks = sinks.map(\.name)
        var arguments = ["-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--log-target=stderr",
                         "-L", "module-native-protocol-unix socket=\(socket) auth-anonymous=1"]
        for sink in sinks {
            arguments += ["-L", "module-null-sink sink_name=\(sink.name) rate=\(sink.rate)"]
        }
        daemon = try BackgroundProcess("pulseaudio", arguments,
                                       environment: ["HOME": directory.path, "XDG_RUNTIME_DIR": directory.path],
                                       errorLog: directory.file("pulseaudio.log"))
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if Self.acceptsConnections(socket) { return }
            guard daemon.isRunning else { break }
            usleep(50_000)
        }
        daemon.stop()
        let log = (try? String(contentsOfFile: directory.file("pulseaudio.log"), encoding: .utf8)) ?? ""
        throw Subprocess.Failure(description: "pulseaudio did not answer on \(server) within 10 s: \(log.suffix(800))")
    }

    /// Plays a sine tone into `sink` with paplay for `seconds` (a 48 kHz stereo 16-bit WAV written here).
    public func playTone(frequency: Int, into sink: String, seconds: Int = 20, amplitude: Double = 0.4) throws {
        let file = directory.file("tone-\(frequency)-\(sink).wav")
        try Self.writeTone(frequency: Double(frequency), seconds: seconds, amplitude: amplitude, to: file)
        let player = try BackgroundProcess("paplay", ["-s", server, "-d", sink, "--latency-msec=20", file])
        players.withLock { $0.append(player) }
    }

    /// Stops the players and the server.
    public func stop() {
        let all = players.withLock { players in
            defer { players = [] }
            return players
        }
        for player in all { player.stop() }
        daemon.stop()
    }

    deinit { stop() }

    /// Whether something accepts connections on the Unix socket at `path`.
    private static func acceptsConnections(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    /// Writes a 48 kHz stereo 16-bit PCM WAV file of a sine tone.
    private static func writeTone(frequency: Double, seconds: Int, amplitude: Double, to path: String) throws {
        let frames = 48_000 * seconds
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        data.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(36 + frames * 4))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))         // fmt chunk size
        append(UInt16(1))          // PCM
        append(UInt16(2))          // channels
        append(UInt32(48_000))     // sample rate
        append(UInt32(48_000 * 4)) // byte rate
        append(UInt16(4))          // block align
        append(UInt16(16))         // bits per sample
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(frames * 4))
        data.reserveCapacity(data.count + frames * 4)
        for index in 0..<frames {
            let value = Int16(amplitude * 32_767 * sin(2 * Double.pi * frequency * Double(index) / 48_000))
            append(value)
            append(value)
        }
        try data.write(to: URL(fileURLWithPath: path))
    }
}
