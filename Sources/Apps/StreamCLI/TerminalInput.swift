#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads secrets from the terminal without echo.
enum TerminalInput {
    /// On a terminal: prints `prompt` to stderr, turns echo off, reads a line, restores the terminal.
    /// Otherwise (a pipe or file): reads a line silently.
    static func readSecret(prompt: String) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return readLine(strippingNewline: true) }
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { return readLine(strippingNewline: true) }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        prompt.withCString { _ = write(STDERR_FILENO, $0, strlen($0)) }
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        let line = readLine(strippingNewline: true)
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
        _ = write(STDERR_FILENO, "\n", 1)
        return line
    }
}
