#if canImport(Glibc)
import FoundationEssentials
#else
import Foundation
#endif
import Locking
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command writes and reads: the process's standard streams, or a `ConsoleCapture` in tests.
public struct Console: Sendable {
    /// Writes text to standard output as is.
    public var writeOutput: @Sendable (String) -> Void
    /// Writes text to standard error as is.
    public var writeError: @Sendable (String) -> Void
    /// Reads one line from standard input without its newline; nil at end of input.
    public var readLine: @Sendable () -> String?
    /// Shows a prompt (on a terminal only) and reads one line with echo turned off; nil at end of input.
    public var readSecret: @Sendable (_ prompt: String) -> String?

    /// Creates a console from closures.
    public init(writeOutput: @escaping @Sendable (String) -> Void, writeError: @escaping @Sendable (String) -> Void,
                readLine: @escaping @Sendable () -> String?,
                readSecret: @escaping @Sendable (_ prompt: String) -> String?) {
        self.writeOutput = writeOutput
        self.writeError = writeError
        self.readLine = readLine
        self.readSecret = readSecret
    }

    /// Writes a line to standard output.
    public func print(_ line: String) { writeOutput(line + "\n") }

    /// Writes a line to standard error.
    public func printError(_ line: String) { writeError(line + "\n") }

    /// The process's file descriptors 0, 1 and 2 (unbuffered writes, so output interleaves correctly).
    public static let standard = Console(
        writeOutput: { writeAll(1, $0) },
        writeError: { writeAll(2, $0) },
        readLine: { Swift.readLine(strippingNewline: true) },
        readSecret: { prompt in TerminalInput.readSecret(prompt: prompt) }
    )

    private static func writeAll(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if count < 0 && errno == EINTR { continue }
            // A closed pipe (EPIPE: SIGPIPE is ignored, see ProcessSignals), a closed descriptor or a full disk:
            // the text is dropped and the command goes on, since there is nowhere left to report it.
            guard count > 0 else { return }
            offset += count
        }
    }
}

/// A console for tests: records everything written and serves standard input from a string.
public final class ConsoleCapture: Sendable {
    private struct State {
        var output = ""
        var error = ""
        var input: [String]
        var prompts: [String] = []
    }

    private let state: Locked<State>

    /// Creates a capture.
    /// - Parameter input: what standard input holds; split into lines.
    public init(input: String = "") {
        var lines = input.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if input.isEmpty || input.hasSuffix("\n") { lines.removeLast() }
        state = Locked(State(input: lines))
    }

    /// Everything written to standard output.
    public var output: String { state.withLock { $0.output } }
    /// Everything written to standard error.
    public var error: String { state.withLock { $0.error } }
    /// The prompts shown by `readSecret`.
    public var prompts: [String] { state.withLock { $0.prompts } }

    /// A console writing into this capture.
    public var console: Console {
        Console(
            writeOutput: { text in self.state.withLock { $0.output += text } },
            writeError: { text in self.state.withLock { $0.error += text } },
            readLine: { self.state.withLock { $0.input.isEmpty ? nil : $0.input.removeFirst() } },
            readSecret: { prompt in
                self.state.withLock { state in
                    state.prompts.append(prompt)
                    return state.input.isEmpty ? nil : state.input.removeFirst()
                }
            }
        )
    }
}
