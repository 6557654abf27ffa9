import Foundation

/// Item 17: the 720p30 + PiP test broadcast on every path it can take — RTMP, RTMPS, WHIP, record only, RTMP with an
/// MP4 recording, two RTMP destinations — each beside ffmpeg doing the same job on the same pictures (for WHIP, which
/// Debian's ffmpeg cannot publish, beside our own RTMP run). Only peak RSS and CPU of the publishing process count:
/// the iOS broadcast extension is killed past ~50 MB, so every path is a gate (see ``Targets``).
struct BroadcastPathsBench {
    let context: BenchContext

    /// One way out of the broadcaster.
    struct Path {
        var name: String
        /// `stream broadcast`'s destinations and options (before the test options).
        var ours: [String]
        /// The lines on its standard input (keys or the WHIP token), one per destination.
        var secrets: [String]
        /// ffmpeg's outputs for the same job; nil when ffmpeg cannot do it.
        var ffmpeg: [String]?
    }

    func run(into report: Report) throws {
        guard BroadcastBench.isAvailable(context.streamExecutable) else {
            report.note("item 17 broadcast paths skipped: this build's `stream` has no `broadcast` command")
            return
        }
        let shape = BroadcastBench.Shape(width: 1280, height: 720, fps: 30, kbps: 2500)
        let duration = context.quick ? 5 : 20
        let bench = BroadcastBench(context: context)
        let pictures = try bench.writePictures(shape)
        let nginx = try NginxServer(directory: context.file("nginx-paths"), certificate: context.certificate,
                                    key: context.privateKey)
        defer { nginx.stop() }
        let whip = try AiortcWHIPEndpoint(directory: context.file("whip-paths-endpoint"))
        defer { whip.stop() }
        let flv = context.file("paths-record.flv")
        let mp4 = context.file("paths-record.mp4")
        let rtmp = nginx.rtmpURL
        let paths = [
            Path(name: "RTMP", ours: [rtmp], secrets: ["paths-rtmp"], ffmpeg: ["-f", "flv", "\(rtmp)/paths-ff"]),
            Path(name: "RTMPS", ours: [nginx.rtmpsURL, "--ca-file", context.certificate], secrets: ["paths-rtmps"],
                 ffmpeg: ["-f", "flv", "\(nginx.rtmpsURL)/paths-ff-tls"]),
            Path(name: "WHIP", ours: [whip.url], secrets: [whip.token], ffmpeg: nil),
            Path(name: "record only (FLV)", ours: ["--record", flv], secrets: [], ffmpeg: ["-y", "-f", "flv", flv]),
            Path(name: "RTMP + record (MP4)", ours: [rtmp, "--record", mp4], secrets: ["paths-rec"],
                 ffmpeg: ["-y", "-flags", "+global_header", "-f", "tee",
                          "[f=flv]\(rtmp)/paths-ff-rec|[f=mp4:movflags=+frag_keyframe+empty_moov]\(mp4)"]),
            Path(name: "two RTMP destinations", ours: [rtmp, rtmp], secrets: ["paths-a", "paths-b"],
                 ffmpeg: ["-flags", "+global_header", "-f", "tee", "[f=flv]\(rtmp)/paths-ff-a|[f=flv]\(rtmp)/paths-ff-b"]),
        ]
        var rtmpRun: ChildProcess.Usage?
        for path in paths {
            // `stream broadcast --record` never overwrites: each run (and ffmpeg after it) starts without the files.
            for file in [flv, mp4] { try? FileManager.default.removeItem(atPath: file) }
            let ours = try broadcast(path, shape: shape, duration: duration)
            if path.name == "RTMP" { rtmpRun = ours }
            let peer: ChildProcess.Usage?
            let peerName: String
            if let output = path.ffmpeg {
                peer = try bench.ffmpegBroadcast(shape, duration: duration, output: output, pictures: pictures,
                                                 log: "ffmpeg-paths-\(path.name.filter(\.isLetter)).log")
                peerName = "ffmpeg, same job"
            } else {
                peer = rtmpRun
                peerName = "our RTMP run"
            }
            let section = "17 broadcast paths 720p30 \(duration)s: \(path.name)"
            report.record(section, "peak RSS", unit: "MB", ours: Double(ours.maxRSS) / 1e6,
                          peer: peer.map { Double($0.maxRSS) / 1e6 }, peerName: peerName,
                          note: "`stream broadcast --source test --pip on` \(path.ours.joined(separator: " ")), "
                            + "2500 kbps, x264 veryfast zerolatency; ffmpeg on the same pictures (see item 3)")
            report.record(section, "peak anonymous RSS (heap, stacks)", unit: "MB",
                          ours: Double(ours.peakAnonymousRSS) / 1e6,
                          peer: peer.map { Double($0.peakAnonymousRSS) / 1e6 }, peerName: peerName)
            report.record(section, "CPU, share of one core", unit: "%", ours: ours.cpuSeconds / Double(duration) * 100,
                          peer: peer.map { $0.cpuSeconds / Double(duration) * 100 }, peerName: peerName)
        }
    }

    private func broadcast(_ path: Path, shape: BroadcastBench.Shape, duration: Int) throws -> ChildProcess.Usage {
        let slug = path.name.filter(\.isLetter)
        let secrets = context.file("paths-\(slug)-secrets.txt")
        try path.secrets.map { $0 + "\n" }.joined().write(toFile: secrets, atomically: true, encoding: .utf8)
        let input = path.secrets.isEmpty ? [] : [path.name == "WHIP" ? "--token-stdin" : "--key-stdin"]
        let child = try ChildProcess(context.streamExecutable,
                                     ["broadcast"] + path.ours + input
                                        + BroadcastBench.testArguments(shape, duration: duration),
                                     logFile: context.file("paths-\(slug).log"),
                                     environment: ["XDG_CONFIG_HOME": context.file("xdg-paths"),
                                                   "XDG_DATA_HOME": context.file("xdg-paths-data")],
                                     standardInput: secrets)
        let usage = child.waitSamplingPeakRSS()
        guard usage.exitStatus == 0 else {
            throw BenchError("stream broadcast (\(path.name)) exited with \(usage.exitStatus): \(child.logTail())")
        }
        return usage
    }
}
