// swift-tools-version:6.0
// Stream's fuzz targets: a separate package so the main build never sees libFuzzer. Each Fuzz* executable exports
// LLVMFuzzerTestOneInput and is built with `swift build --sanitize=fuzzer --sanitize=address` (scripts/fuzz.sh);
// MakeCorpus writes the seed inputs in Corpus/ with the project's own encoders and is built without sanitizers.
// `Stream` is a symlink to the main package: SwiftPM names a path dependency after its directory, and the main
// package's directory is called differently in every checkout (main, a worktree); the symlink fixes the name.
import PackageDescription

/// Every fuzz target links the main package's pure codecs (its StreamWire product).
let wire: Target.Dependency = .product(name: "StreamWire", package: "Stream")

let fuzzTargets = [
    "FuzzAMF0",
    "FuzzChunkDecoder",
    "FuzzFLV",
    "FuzzServerHandshake",
    "FuzzServerSession",
    "FuzzSettings",
    "FuzzIngestURL",
    "FuzzSDP",
    "FuzzSTUN",
    "FuzzRTCP",
    "FuzzHTTPRequestHead",
    "FuzzChunkedDecoder",
    "FuzzWebSocketFrameDecoder",
    "FuzzLiveRequest",
    "FuzzShowsFile",
]

let package = Package(
    name: "StreamFuzz",
    platforms: [.macOS(.v15)],
    products: fuzzTargets.map { .executable(name: $0, targets: [$0]) }
        + [.executable(name: "MakeCorpus", targets: ["MakeCorpus"])],
    dependencies: [.package(path: "Stream")],
    targets: [
        .target(name: "FuzzSupport"),
        .executableTarget(
            name: "MakeCorpus",
            dependencies: ["FuzzSupport", wire]),
    ] + fuzzTargets.map { .executableTarget(name: $0, dependencies: ["FuzzSupport", wire]) },
    swiftLanguageModes: [.v6]
)
