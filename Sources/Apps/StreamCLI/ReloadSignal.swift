import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGHUP, turned into a call of `onReload`: `kill -HUP PID` asks `stream serve` to re-read its shows file.
///
/// While it exists SIGHUP no longer ends the process (its default action), so closing the terminal that started
/// the server reloads it instead of stopping it, as with most daemons.
final class ReloadSignal: Sendable {
    // Safe: set once in init, then only cancelled in deinit; dispatch sources are thread-safe objects.
    nonisolated(unsafe) private let source: any DispatchSourceSignal

    /// Calls `onReload` on a global queue at each SIGHUP (signals that come while one runs are merged).
    init(onReload: @escaping @Sendable () -> Void) {
        signal(SIGHUP, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "stream.reload"))
        source.setEventHandler(handler: onReload)
        source.resume()
    }

    deinit { source.cancel() }
}
