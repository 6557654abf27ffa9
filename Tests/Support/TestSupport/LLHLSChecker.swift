import Foundation

/// The LL-HLS playlist checker (`Peers/hls_checker.py`): the `m3u8` parser from PyPI plus the rules of RFC 8216bis
/// that Stream's playlists follow, run over successive versions of one playlist.
public enum LLHLSChecker {
    /// What the checker found.
    public struct Report: Sendable, CustomStringConvertible {
        public var playlists: Int
        public var segments: Int
        public var parts: Int
        public var ended: Bool
        public var errors: [String]
        public var output: String

        public var description: String { output }
    }

    /// The checker script, kept beside this file (and excluded from the target's sources).
    public static var scriptPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/hls_checker.py")
            .path
    }

    /// Checks every `*.m3u8` in `directory`, in name order.
    public static func check(directory: String) throws -> Report {
        let result = try Subprocess.run("python3", [scriptPath, directory], timeout: 120)
        guard let line = result.stdout.split(separator: "\n").last,
              let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw Subprocess.Failure(description: "the HLS checker failed: \(result.stdout) \(result.stderr)")
        }
        return Report(playlists: json["playlists"] as? Int ?? 0, segments: json["segments"] as? Int ?? 0,
                      parts: json["parts"] as? Int ?? 0, ended: json["ended"] as? Bool ?? false,
                      errors: json["errors"] as? [String] ?? ["no error list"], output: result.stdout + result.stderr)
    }
}
