import TestSupport
import Foundation
import StreamCLI

/// What one run of `stream` produced.
struct RunResult {
    let exitCode: Int32
    let output: String
    let error: String
}

/// Runs `stream` in-process with a captured console and the given directory as XDG_CONFIG_HOME.
func runCLI(_ arguments: [String], stdin: String = "", in directory: TemporaryConfigHome) -> RunResult {
    let capture = ConsoleCapture(input: stdin)
    let code = StreamCLIMain.run(["stream"] + arguments, console: capture.console, environment: directory.environment)
    return RunResult(exitCode: code, output: capture.output, error: capture.error)
}
