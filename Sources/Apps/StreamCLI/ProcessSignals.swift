#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The signal dispositions of the `stream` process, set once when it starts.
///
/// A broadcaster or server must outlive its terminal or pipe: `stream broadcast ... | head -1` closes standard
/// output after one line, and the default action of SIGPIPE would then end the broadcast and its recording in
/// the middle. With SIGPIPE ignored, a write to a closed pipe fails with EPIPE instead, and ``Console`` drops
/// what could not be written. Sockets never needed it (they use `MSG_NOSIGNAL`, and the event loop blocks
/// SIGPIPE on its thread for OpenSSL); this covers standard output, standard error and every other descriptor.
enum ProcessSignals {
    /// Ignores SIGPIPE for the whole process.
    static func configure() {
        signal(SIGPIPE, SIG_IGN)
    }
}
