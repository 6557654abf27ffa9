import Foundation

/// Whether the tests run under a sanitizer (`scripts/sanitize.sh` sets the sanitizer's options), so that tests of
/// real-time behaviour and of memory can allow for it: the instrumented code runs several times slower, and
/// AddressSanitizer's allocator keeps freed memory.
public enum Sanitizer {
    /// Running under AddressSanitizer.
    public static var isAddress: Bool { ProcessInfo.processInfo.environment["ASAN_OPTIONS"] != nil }

    /// Running under ThreadSanitizer.
    public static var isThread: Bool { ProcessInfo.processInfo.environment["TSAN_OPTIONS"] != nil }

    /// Running under either.
    public static var isActive: Bool { isAddress || isThread }

    /// `environment` plus this run's sanitizer settings (`*SAN_OPTIONS`: suppressions, exit codes), which hold for
    /// every program a sanitized test run starts, also when the test gives the program an environment of its own.
    public static func carryingOptions(into environment: [String: String]) -> [String: String] {
        var environment = environment
        for (name, value) in ProcessInfo.processInfo.environment where name.hasSuffix("SAN_OPTIONS") {
            environment[name] = environment[name] ?? value
        }
        return environment
    }
}
