import Foundation
import TestSupport

/// A Python 3 peer that runs alongside the test: written to a temporary directory from a Swift string, started
/// with arguments; it prints what it has to say on standard output, one line at a time.
final class PythonPeer: Sendable {
    private let directory: TemporaryDirectory
    private let process: BackgroundProcess

    init(_ script: String, _ arguments: [String] = []) throws {
        directory = try TemporaryDirectory("py-peer")
        let path = directory.file("peer.py")
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        process = try BackgroundProcess("python3", ["-u", path] + arguments, errorLog: directory.file("stderr.log"))
    }

    /// The next line the script printed (waiting on a thread of its own, not on Swift's cooperative pool).
    func readLine(timeout: TimeInterval = 30) async throws -> String {
        let process = self.process
        do {
            return try await offPool { try process.readLine(timeout: timeout) }
        } catch {
            throw Subprocess.Failure(description: "\(error); the peer's stderr:\n\(errors.suffix(3000))")
        }
    }

    /// Lines until one equals `last` (not included).
    func readLines(until last: String, timeout: TimeInterval = 60) async throws -> [String] {
        var lines: [String] = []
        while true {
            let line = try await readLine(timeout: timeout)
            if line == last { return lines }
            lines.append(line)
        }
    }

    /// What the script wrote on standard error so far.
    var errors: String {
        (try? String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8)) ?? ""
    }

    /// Ends the peer at once (SIGKILL: a test peer has nothing to save, and a threaded Python server may take the
    /// whole grace period to act on SIGTERM).
    func stop() {
        process.crash()
    }
}
