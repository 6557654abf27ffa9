import Foundation
import TestSupport

/// Runs a Python 3 script (written to a temporary directory from a Swift string) with arguments.
/// - Returns: its standard output.
/// - Throws: when it exits non-zero (its standard error is in the failure).
/// It runs on a thread of its own (``offPool(_:_:)``): the server's async handlers need Swift's cooperative pool.
func runPython(_ script: String, _ arguments: [String], timeout: TimeInterval = 60) async throws -> String {
    let directory = try TemporaryDirectory("py")
    let path = directory.file("peer.py")
    try script.write(toFile: path, atomically: true, encoding: .utf8)
    let result = try await offPool { try Subprocess.run("python3", [path] + arguments, timeout: timeout) }
    guard result.status == 0 else {
        throw Subprocess.Failure(description: "python peer exited \(result.status):\n\(result.stderr.suffix(3000))")
    }
    return result.stdout
}
