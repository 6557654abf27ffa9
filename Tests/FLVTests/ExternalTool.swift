import Foundation

/// Runs ffmpeg and ffprobe (real, independent peers) for the FLV tests, in a private temporary directory.
struct ExternalTool {
    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `/usr/bin/<name>` to completion; output goes through files so a chatty tool cannot block on a pipe.
    static func run(_ name: String, _ arguments: [String], in directory: URL) throws -> Result {
        let outputURL = directory.appendingPathComponent("\(name)-\(UUID().uuidString).out")
        let errorURL = directory.appendingPathComponent("\(name)-\(UUID().uuidString).err")
        for url in [outputURL, errorURL] where !FileManager.default.createFile(atPath: url.path, contents: nil) {
            throw Failure(description: "cannot create \(url.path)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(name)")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            output: (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "",
            errors: (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
        )
    }

    /// A fresh temporary directory; the caller removes it.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("flv-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The number of video frames ffprobe decodes, and what it complained about.
    static func countVideoFrames(_ file: URL, in directory: URL) throws -> (frames: Int?, errors: String) {
        let result = try run("ffprobe", [
            "-v", "error", "-count_frames", "-select_streams", "v:0",
            "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", file.path,
        ], in: directory)
        guard result.status == 0 else {
            throw Failure(description: "ffprobe exited with \(result.status): \(result.errors)")
        }
        return (Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)), result.errors)
    }
}
