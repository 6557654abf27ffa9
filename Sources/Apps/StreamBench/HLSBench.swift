#if canImport(Glibc)
import Glibc
#endif
import FLV
import Foundation
import IngestServer
import Publisher
import StreamCore

/// Item 14: LL-HLS readers. One stream published to `stream serve` (stream-bench's own RTMP publisher, which notes when
/// it sent each frame), read by many LL-HLS readers (blocking playlist reloads and hinted parts, two keep-alive
/// connections each, 25 readers to a Python process: `Tests/Support/TestSupport/Peers/hls_readers.py`); then the same files,
/// mirrored to disk, served by nginx to as many readers polling at the part rate (nginx cannot hold a request); then
/// the same again with nginx doing the same work as `stream serve`: it also ingests a second publish of the same file
/// at the same pace over RTMP and packages it as HLS (nginx-rtmp, MPEG-TS segments into a directory no reader is
/// served). Measures the CPU of each server while it serves (and with the publish and no reader: `stream serve`'s and
/// nginx-rtmp's ingest and packaging), `stream serve`'s peak RSS, and how long after the publisher sent a part's last
/// frame the part reached a held reader.
struct HLSBench {
    let context: BenchContext
    static let bitrateKbps = 2500

    struct Outcome {
        var cpuPercent: Double
        /// `stream serve`, and nginx doing the same work: its CPU with the publish and no reader (ingest and
        /// packaging).
        var idleCPUPercent: Double?
        var peakRSS: Int
        var partsPerSecond: Double
        var requestsPerSecond: Double
        /// From the publisher's send of a part's last frame to the reader having the part, and to the kernel
        /// receiving its last byte on the reader's socket (the same, without the reader's own scheduling: 25 readers
        /// share an event loop, and the readers' processes share the 2 cores with the server).
        var delays: [Double]
        var socketDelays: [Double]
        var failedReaders: Int
        var errors: Int
    }

    func run(into report: Report) throws {
        let readers = context.quick ? 20 : 200
        let duration = context.quick ? 8.0 : 20.0
        let file = try context.encodedFLV(seconds: context.quick ? 20 : 40, kbps: Self.bitrateKbps)
        let (ours, nginx, sameWork) = try measure(file: file, readers: readers, duration: duration)
        let section = "14 LL-HLS \(readers) readers"
        let peer = "nginx (static, polling)"
        report.record(section, "server CPU, share of one core", unit: "%", ours: ours.cpuPercent,
                      peer: nginx.cpuPercent, peerName: peer,
                      note: "one 720p30 \(Self.bitrateKbps) kbps stream; ours = the whole stream serve process: "
                        + "the RTMP ingest, the packaging and the HTTP serving of blocking reloads and parts; nginx = "
                        + "its master and workers serving the same playlist and parts from disk to readers that poll "
                        + "every PART-TARGET (the files it serves are packaged by stream serve and copied to disk by "
                        + "a Python mirror: neither is counted on its side)")
        report.record(section, "server CPU without readers (ingest, packaging)", unit: "%", ours: ours.idleCPUPercent)
        report.record(section, "server CPU for the readers (above that)", unit: "%",
                      ours: ours.idleCPUPercent.map { ours.cpuPercent - $0 }, peer: nginx.cpuPercent, peerName: peer)
        let sameWorkPeer = "nginx (rtmp ingest, HLS, static)"
        report.record(section, "server CPU, same work (nginx also ingests and packages the publish as HLS)", unit: "%",
                      ours: ours.cpuPercent, peer: sameWork.cpuPercent, peerName: sameWorkPeer,
                      note: "ours = the first row's; nginx = the same one-worker nginx serving the same files to as "
                        + "many polling readers while nginx-rtmp ingests a second publish of the same FLV at the same "
                        + "pace and packages it as HLS (hls on, hls_fragment 2s: MPEG-TS segments, written to a "
                        + "directory no reader is served), measured in a phase of its own")
        report.record(section, "server CPU without readers, same work (ingest, packaging)", unit: "%",
                      ours: ours.idleCPUPercent, peer: sameWork.idleCPUPercent, peerName: "nginx-rtmp (ingest, HLS)",
                      note: "each server's process tree over 5 s with the publish and no reader: ours packages "
                        + "LL-HLS (fMP4 parts), nginx-rtmp HLS (MPEG-TS segments)")
        report.record(section, "server peak RSS", unit: "MB", ours: Double(ours.peakRSS) / 1e6,
                      peer: Double(nginx.peakRSS) / 1e6, peerName: "\(peer) (master+workers)")
        report.record(section, "parts delivered", unit: "parts/s", ours: ours.partsPerSecond,
                      peer: nginx.partsPerSecond, peerName: peer)
        report.record(section, "requests answered", unit: "req/s", ours: ours.requestsPerSecond,
                      peer: nginx.requestsPerSecond, peerName: peer)
        report.record(section, "part at a held reader after its last frame was sent, p50", unit: "ms",
                      ours: Self.percentile(ours.delays, 0.5), peer: Self.percentile(nginx.delays, 0.5),
                      peerName: peer)
        report.record(section, "part at a held reader after its last frame was sent, p99", unit: "ms",
                      ours: Self.percentile(ours.delays, 0.99), peer: Self.percentile(nginx.delays, 0.99),
                      peerName: peer)
        report.record(section, "part on a held reader's socket after its last frame was sent, p50", unit: "ms",
                      ours: Self.percentile(ours.socketDelays, 0.5), peer: Self.percentile(nginx.socketDelays, 0.5),
                      peerName: peer,
                      note: "the kernel's receive time of the part's last byte on the reader's socket "
                        + "(SO_TIMESTAMPNS): the rows above without the readers' own scheduling")
        report.record(section, "part on a held reader's socket after its last frame was sent, p99", unit: "ms",
                      ours: Self.percentile(ours.socketDelays, 0.99), peer: Self.percentile(nginx.socketDelays, 0.99),
                      peerName: peer)
        report.record(section, "readers failed or errors", unit: "count",
                      ours: Double(ours.failedReaders + ours.errors), peer: Double(nginx.failedReaders + nginx.errors),
                      peerName: peer)
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    /// A publish's first segment (2 s) and a little more.
    static let settleMicroseconds: UInt32 = 4_000_000

    private func measure(file: String, readers: Int, duration: Double) throws
        -> (ours: Outcome, nginx: Outcome, sameWork: Outcome) {
        let rtmpPort = try Loopback.freePort()
        let httpPort = try Loopback.freePort()
        let serve = try ChildProcess(context.streamExecutable, [
            "serve", "--listen", "127.0.0.1:\(rtmpPort)", "--http-listen", "127.0.0.1:\(httpPort)", "--no-record",
        ], logFile: context.file("serve-hls.log"),
           environment: ["XDG_CONFIG_HOME": context.file("xdg-config"), "XDG_DATA_HOME": context.file("xdg-data")])
        defer { serve.stop(SIGINT) }
        do {
            try ChildProcess.waitUntilListening(rtmpPort)
            try ChildProcess.waitUntilListening(httpPort)
        } catch {
            serve.stop(SIGKILL)
            throw BenchError("stream serve did not start: \(serve.logTail())")
        }
        let key = "hls-bench"
        let warmup = 3.0
        // The nginx phase that does the same work: its nginx's start and stop, settling, the window without readers,
        // the readers' warm-up and window, and their reports.
        let sameWorkSeconds = duration + warmup + 15
        // Long enough for the three phases and their warm-ups.
        let publisher = try PacedPublisher(file: file, url: "rtmp://127.0.0.1:\(rtmpPort)/live", key: key,
                                           seconds: duration * 2 + 21 + sameWorkSeconds)
        publisher.start()
        defer { publisher.stop() }
        usleep(Self.settleMicroseconds)
        // The address is an unguessable tag of the key, printed as the publish starts.
        let printed = (try? String(contentsOfFile: serve.logFile, encoding: .utf8)) ?? ""
        guard let line = printed.split(separator: "\n").first(where: { $0.hasPrefix("LL-HLS: ") }) else {
            throw BenchError("stream serve printed no LL-HLS address: \(serve.logTail())")
        }
        let playlist = String(line.dropFirst("LL-HLS: ".count))
        let idleCPU = publishCPUPercent(server: serve.pid)
        var ours = try readerPhase(mode: "blocking", url: playlist, readers: readers, duration: duration,
                                   warmup: warmup, server: serve.pid, publisher: publisher, name: "ours")
        ours.idleCPUPercent = idleCPU

        let site = context.file("hls-site")
        try? FileManager.default.removeItem(atPath: site)
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        let mirror = try ChildProcess("python3", [context.hlsReadersScript, "mirror", playlist, site,
                                                  "\(duration + warmup + 4 + sameWorkSeconds)"],
                                      logFile: context.file("hls-mirror.log"))
        defer { mirror.stop(SIGKILL) }
        let nginx = try NginxStaticServer(directory: context.file("nginx-hls"), root: site, sendfile: true)
        defer { nginx.stop() }
        usleep(1_500_000)
        let theirs = try readerPhase(mode: "polling", url: "http://127.0.0.1:\(nginx.port)/files/index.m3u8",
                                     readers: readers, duration: duration, warmup: warmup,
                                     server: nginx.child.pid, publisher: publisher, name: "nginx")
        nginx.stop()
        let sameWork = try sameWorkPhase(file: file, key: key, site: site, readers: readers, duration: duration,
                                         warmup: warmup, publisher: publisher)
        return (ours, theirs, sameWork)
    }

    /// What a publish alone costs a server (ingest and packaging): its process tree's CPU over 5 s with no reader.
    /// CPU from the scheduler's run times, as item 5 reads it: at ~3 % of a core a 20 s window is ~60 ticks of /proc's
    /// 10 ms, this 5 s one ~4, so one tick either way moved the ratio by a few per cent and the ingest's share by
    /// 25-50 %.
    private func publishCPUPercent(server: pid_t) -> Double {
        let start = ProcessTree.serverCPUSeconds(root: server)
        let clock = Measure.now()
        usleep(5_000_000)
        return (ProcessTree.serverCPUSeconds(root: server) - start) / (Measure.now() - clock) * 100
    }

    /// nginx doing what `stream serve` does: one worker ingests a second publish of `file` (same key, same pace) over
    /// RTMP and packages it as HLS into a directory no reader is served, while it serves `site` (our files, mirrored)
    /// to polling readers. Its CPU with the publish and no reader is read first, as ours is. Throws when nginx-rtmp
    /// wrote no segment: its figures would then be those of a server that did not do the work.
    private func sameWorkPhase(file: String, key: String, site: String, readers: Int, duration: Double,
                               warmup: Double, publisher: PacedPublisher) throws -> Outcome {
        let directory = context.file("nginx-hls-same-work")
        let segments = "\(directory)/rtmp-hls"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: segments, withIntermediateDirectories: true)
        let nginx = try NginxStaticServer(directory: directory, root: site, sendfile: true, hlsDirectory: segments)
        defer { nginx.stop() }
        guard let url = nginx.ingestURL else { throw BenchError("nginx was started without its RTMP ingest") }
        let ingest = try PacedPublisher(file: file, url: url, key: key, seconds: duration + warmup + 12)
        ingest.start()
        defer { ingest.stop() }
        usleep(Self.settleMicroseconds)
        let idleCPU = publishCPUPercent(server: nginx.child.pid)
        var outcome = try readerPhase(mode: "polling", url: "http://127.0.0.1:\(nginx.port)/files/index.m3u8",
                                      readers: readers, duration: duration, warmup: warmup,
                                      server: nginx.child.pid, publisher: publisher, name: "nginx-same-work")
        outcome.idleCPUPercent = idleCPU
        let written = ((try? FileManager.default.contentsOfDirectory(atPath: segments)) ?? [])
            .filter { $0.hasSuffix(".ts") }
        guard !written.isEmpty else {
            let log = (try? String(contentsOfFile: "\(directory)/error.log", encoding: .utf8)) ?? ""
            throw BenchError("nginx-rtmp wrote no HLS segment to \(segments) while published to, so its CPU is not "
                             + "that of the same work; its error log: \(log.suffix(500))")
        }
        guard outcome.failedReaders < readers else {
            throw BenchError("every reader of nginx doing the same work failed: see "
                             + context.file("hls-readers-nginx-same-work-0.json"))
        }
        return outcome
    }

    /// Readers per Python process: one asyncio loop serving many more would itself delay the parts it times.
    static let readersPerProcess = 25

    private func readerPhase(mode: String, url: String, readers: Int, duration: Double, warmup: Double,
                             server: pid_t, publisher: PacedPublisher, name: String) throws -> Outcome {
        let shares = stride(from: 0, to: readers, by: Self.readersPerProcess).map {
            min(Self.readersPerProcess, readers - $0)
        }
        let outputs = shares.indices.map { context.file("hls-readers-\(name)-\($0).json") }
        let processes = try zip(shares, outputs).map { share, output in
            try ChildProcess("python3", [context.hlsReadersScript, mode, url, "\(share)", "\(duration + warmup)"],
                             logFile: output)
        }
        usleep(UInt32(warmup * 1e6))
        let cpuStart = ProcessTree.serverCPUSeconds(root: server)
        let start = Measure.now()
        usleep(UInt32((duration - 0.5) * 1e6))
        let cpu = ProcessTree.serverCPUSeconds(root: server) - cpuStart
        let elapsed = Measure.now() - start
        let rss = ProcessTree.peakRSS(root: server)
        // The readers stop by themselves at their deadline; wait for their reports.
        let deadline = Measure.now() + warmup + 30
        while !processes.allSatisfy(\.hasExited) && Measure.now() < deadline { usleep(100_000) }
        var (requests, parts, failed, errors) = (0, 0, 0, 0)
        var records: [[Double]] = []
        for (process, output) in zip(processes, outputs) {
            process.stop(SIGKILL)
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            guard let line = text.split(separator: "\n").last,
                  let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw BenchError("the \(name) readers printed no result: \(text.suffix(500))")
            }
            records += json["records"] as? [[Double]] ?? []
            requests += json["requests"] as? Int ?? 0
            parts += json["parts"] as? Int ?? 0
            failed += json["failed_readers"] as? Int ?? Self.readersPerProcess
            errors += json["errors"] as? Int ?? 0
        }
        let sent = publisher.sendTimes
        // The packaged timeline starts at 0 on the first keyframe.
        let origin = publisher.firstKeyframe
        func delays(_ field: Int) -> [Double] {
            records.compactMap { record -> Double? in
                guard record.count > field, let sentAt = sent[Int(record[0].rounded()) + origin] else { return nil }
                return record[field] - sentAt
            }
        }
        let total = duration + warmup
        return Outcome(cpuPercent: cpu / elapsed * 100, idleCPUPercent: nil, peakRSS: rss,
                       partsPerSecond: Double(parts) / total, requestsPerSecond: Double(requests) / total,
                       delays: delays(1), socketDelays: delays(2), failedReaders: failed, errors: errors)
    }
}

/// Publishes an FLV file over RTMP at its own pace (tag timestamps against the wall clock), noting the wall-clock
/// time (ms since the epoch) at which each video frame was handed to the socket, by its timestamp.
final class PacedPublisher: @unchecked Sendable {
    // Safe: `times` is only touched under `lock`; the task is started once and cancelled once.
    private let tags: [FLVTag]
    private let url: String
    private let key: String
    private let seconds: Double
    private let lock = NSLock()
    private var times: [Int: Double] = [:]
    private var task: Task<Void, Never>?

    init(file: String, url: String, key: String, seconds: Double) throws {
        var reader = FLVReader()
        reader.append(try Data(contentsOf: URL(fileURLWithPath: file)))
        var tags: [FLVTag] = []
        while let tag = try reader.next() { tags.append(tag) }
        self.tags = tags
        self.url = url
        self.key = key
        self.seconds = seconds
    }

    /// The timestamp (ms) of the file's first keyframe.
    var firstKeyframe: Int {
        Int(tags.first { $0.isVideoKeyFrame && !$0.isSequenceHeader }?.timestamp ?? 0)
    }

    var sendTimes: [Int: Double] {
        lock.withLock { times }
    }

    func start() {
        let tags = self.tags
        let url = self.url
        let key = self.key
        let seconds = self.seconds
        task = Task.detached { [self] in
            do {
                let client = try RTMPClient()
                try await client.connect(to: try IngestURL(parsing: url))
                try await client.publish(streamKey: key)
                let start = ContinuousClock.now
                // The file loops with its timestamps continuing, until `seconds` have passed.
                let span = UInt32(tags.last?.timestamp ?? 0) + 33
                var loop: UInt32 = 0
                while ContinuousClock.now - start < .seconds(seconds) && !Task.isCancelled {
                    for var tag in tags where tag.type != .scriptData || loop == 0 {
                        if loop > 0 && tag.isSequenceHeader { continue }
                        tag.timestamp &+= loop &* span
                        try await Task.sleep(until: start + .milliseconds(Int(tag.timestamp)), clock: .continuous)
                        try await client.send(tag)
                        if tag.type == .video && !tag.isSequenceHeader {
                            let now = Date().timeIntervalSince1970 * 1000
                            self.lock.withLock { self.times[Int(tag.timestamp)] = now }
                        }
                        if Task.isCancelled { break }
                    }
                    loop += 1
                }
                await client.close()
            } catch is CancellationError {
                // Stopped.
            } catch {
                FileHandle.standardError.write(Data("[bench] HLS publisher failed: \(error)\n".utf8))
            }
        }
    }

    func stop() {
        task?.cancel()
    }
}

extension BenchContext {
    /// The LL-HLS reader script the tests use too (stream-bench runs from the repository's root, as
    /// scripts/bench.sh does).
    var hlsReadersScript: String {
        FileManager.default.currentDirectoryPath + "/Tests/Support/TestSupport/Peers/hls_readers.py"
    }
}
