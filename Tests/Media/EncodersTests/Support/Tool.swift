import Foundation

/// Runs ffmpeg/ffprobe on what the encoders produced: independent decoders are the judges here.
enum Tool {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `/usr/bin/<name>` to completion; output goes through temporary files so no pipe can fill up.
    static func run(_ name: String, _ arguments: [String]) throws -> Result {
        let path = "/usr/bin/\(name)"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw Failure(description: "\(name) is not installed (apt-get install ffmpeg)")
        }
        let directory = try TemporaryDirectory()
        let outPath = directory.file("stdout")
        let errPath = directory.file("stderr")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Result(status: process.terminationStatus,
                      stdout: try String(contentsOfFile: outPath, encoding: .utf8),
                      stderr: try String(contentsOfFile: errPath, encoding: .utf8))
    }

    /// `ffprobe -show_streams` of the first stream as key/value pairs (`codec_name`, `width`, `nb_read_frames`...).
    static func probeFirstStream(_ file: String, countFrames: Bool = false) throws -> [String: String] {
        let result = try run("ffprobe", ["-v", "error"] + (countFrames ? ["-count_frames"] : [])
            + ["-show_streams", "-select_streams", "0", file])
        guard result.status == 0 else { throw Failure(description: "ffprobe failed on \(file): \(result.stderr)") }
        var fields: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return fields
    }
}

/// A temporary directory removed when the value is released.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("\(FileManager.default.temporaryDirectory.path)/stream-encoders-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Tool.Failure(description: "mkdtemp failed") }
        path = String(cString: made)
    }

    func file(_ name: String) -> String { "\(path)/\(name)" }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
