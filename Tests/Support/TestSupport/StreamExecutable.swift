import Foundation

/// The built `stream` executable, for tests that run it as a subprocess.
///
/// Test targets that use it depend on the `stream` target in Package.swift, so it is built first. It is found next
/// to the test bundle, in the build products directory (`.build/debug` or Xcode's `Build/Products/Debug`). Set
/// `STREAM_EXECUTABLE` to test another binary.
public enum StreamExecutable {
    public static func url() throws -> URL {
        if let override = ProcessInfo.processInfo.environment["STREAM_EXECUTABLE"] {
            return URL(fileURLWithPath: override)
        }
        var productsDirectory: URL?
        #if os(macOS)
        productsDirectory = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL
            .deletingLastPathComponent()
        #endif
        if productsDirectory == nil {
            // On Linux the test bundle is itself an executable in the products directory.
            productsDirectory = Bundle.main.executableURL?.deletingLastPathComponent()
        }
        guard let url = productsDirectory?.appendingPathComponent("stream"),
              FileManager.default.isExecutableFile(atPath: url.path) else {
            throw Subprocess.Failure(description: "no stream executable next to the tests: run `swift build` first")
        }
        return url
    }
}
