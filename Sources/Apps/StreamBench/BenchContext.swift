import Foundation

/// What every benchmark needs: the mode, a scratch directory, a cache for generated media, and the peers' paths.
struct BenchContext {
    /// Short smoke mode: small sizes, one run.
    var quick: Bool
    /// Scratch files (raw frames, nginx config, logs); removed by the script afterwards.
    var workDirectory: String
    /// Generated FLV files kept between runs (git-ignored bench-results/cache).
    var cacheDirectory: String
    /// The `stream` executable (release build) for `stream serve`.
    var streamExecutable: String
    /// This program, to run child measurements in their own process.
    var selfExecutable: String
    /// The TLS certificate and key for RTMPS (self-signed for 127.0.0.1).
    var certificate: String
    var privateKey: String
    /// Item 5 restricted to one scenario, and its measured seconds (from the command line).
    var ingestScenario: (publishers: Int, players: Int)?
    var ingestSeconds: Double?

    func file(_ name: String) -> String { "\(workDirectory)/\(name)" }

    /// Makes the certificate pair with the openssl CLI.
    static func makeCertificate(in directory: String) throws -> (certificate: String, key: String) {
        let certificate = "\(directory)/cert.pem"
        let key = "\(directory)/key.pem"
        try ChildProcess.run("openssl", [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ], logFile: "\(directory)/openssl.log")
        return (certificate, key)
    }

    /// A pre-encoded FLV (x264 veryfast, AAC), made once by ffmpeg and cached: `seconds` long at `kbps`.
    func encodedFLV(seconds: Int, width: Int = 1280, height: Int = 720, fps: Int = 30, kbps: Int) throws -> String {
        let path = "\(cacheDirectory)/testsrc2-\(height)p\(fps)-\(kbps)k-\(seconds)s.flv"
        if FileManager.default.fileExists(atPath: path) { return path }
        try FileManager.default.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
        let partial = path + ".partial.flv"
        try ChildProcess.run("ffmpeg", [
            "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
            "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=\(fps)",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-t", "\(seconds)", "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency",
            "-b:v", "\(kbps)k", "-maxrate", "\(kbps)k", "-bufsize", "\(kbps)k", "-g", "\(fps * 2)",
            "-keyint_min", "\(fps * 2)", "-sc_threshold", "0", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-b:a", "128k", "-ac", "2", "-f", "flv", partial,
        ], logFile: "\(workDirectory)/ffmpeg-make-flv.log")
        try FileManager.default.moveItem(atPath: partial, toPath: path)
        return path
    }
}
