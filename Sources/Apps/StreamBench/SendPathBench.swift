import FLV
import Foundation
import Locking
import Publisher
import StreamCore

/// Item 4: a pre-encoded FLV pushed as fast as possible through our RTMP chunker and TLS (RTMPClient) to nginx's
/// TLS front on loopback, beside `ffmpeg -i file.flv -c copy -f flv rtmps://...` to the same server.
struct SendPathBench {
    let context: BenchContext

    struct Result: Sendable {
        var wall: Double
        var cpu: Double
        var bytes: Int
    }

    func run(into report: Report) throws {
        let seconds = context.quick ? 10 : 60
        let file = try context.encodedFLV(seconds: seconds, kbps: 3000)
        let nginx = try NginxServer(directory: context.file("nginx-send"), certificate: context.certificate,
                                    key: context.privateKey)
        defer { nginx.stop() }
        let url = nginx.rtmpsURL
        let caFile = context.certificate
        let ours = try runBlocking { try await Self.push(file: file, url: url, caFile: caFile) }
        let ffmpeg = try ChildProcess.run("ffmpeg", [
            "-nostdin", "-hide_banner", "-loglevel", "error", "-i", file, "-c", "copy", "-f", "flv",
            "\(url)/bench-ffmpeg",
        ], logFile: context.file("ffmpeg-send.log"))
        let megabytes = Double(ours.bytes) / 1e6
        let section = "4 RTMPS send \(seconds)s 720p 3Mbps FLV"
        report.record(section, "throughput", unit: "MB/s", ours: megabytes / ours.wall,
                      peer: megabytes / ffmpeg.wallSeconds, peerName: "ffmpeg -c copy rtmps",
                      note: "to nginx-rtmp behind nginx's stream-module TLS front on loopback (TLS 1.3); ours "
                        + "includes reading + parsing the FLV, ffmpeg's wall time includes its start-up")
        report.record(section, "CPU per MB sent", unit: "ms/MB", ours: ours.cpu / megabytes * 1000,
                      peer: ffmpeg.cpuSeconds / megabytes * 1000, peerName: "ffmpeg -c copy rtmps")
    }

    /// Reads and parses `file`, publishes it to `url` tag by tag without pacing, and waits until all is sent.
    static func push(file: String, url: String, caFile: String) async throws -> Result {
        let cpuStart = Measure.processCPU()
        let start = Measure.now()
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        var reader = FLVReader()
        reader.append(data)
        let client = try RTMPClient(options: RTMPClient.Options(caFile: caFile))
        try await client.connect(to: IngestURL(parsing: url))
        try await client.publish(streamKey: "bench-ours")
        var bytes = 0
        while let tag = try reader.next() {
            try await client.send(tag)
            bytes += tag.encodedSize
            if await client.queuedBytes > 2 << 20 {
                try await client.waitForDrain(below: 512 << 10)
            }
        }
        try await client.waitForDrain(below: 1)
        await client.close(flushTimeout: .seconds(30))
        return Result(wall: Measure.now() - start, cpu: Measure.processCPU() - cpuStart, bytes: bytes)
    }
}
