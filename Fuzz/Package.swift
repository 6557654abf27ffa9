// swift-tools-version:6.0
// Stream's fuzz targets: a separate package so the main build never sees libFuzzer. Each Fuzz* executable exports
// LLVMFuzzerTestOneInput and is built with `swift build --sanitize=fuzzer --sanitize=address` (scripts/fuzz.sh);
// MakeCorpus writes the seed inputs in Corpus/ with the project's own encoders and is built without sanitizers.
// `Stream` is a symlink to the main package: SwiftPM names a path dependency after its directory, and the main
// package's directory is called differently in every checkout (main, a worktree); the symlink fixes the name.
import PackageDescription

let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
    ("FuzzAMF0", [.product(name: "AMF", package: "Stream")]),
    ("FuzzChunkDecoder", [.product(name: "RTMP", package: "Stream")]),
    ("FuzzFLV", [.product(name: "FLV", package: "Stream"), .product(name: "AMF", package: "Stream")]),
    ("FuzzServerHandshake", [.product(name: "RTMP", package: "Stream")]),
    ("FuzzServerSession", [.product(name: "RTMP", package: "Stream")]),
    ("FuzzSettings", [.product(name: "StreamCore", package: "Stream")]),
    ("FuzzIngestURL", [.product(name: "StreamCore", package: "Stream")]),
    ("FuzzSDP", [.product(name: "SDP", package: "Stream")]),
    ("FuzzSTUN", [.product(name: "ICE", package: "Stream")]),
    ("FuzzRTCP", [.product(name: "RTP", package: "Stream")]),
    ("FuzzHTTPRequestHead", [.product(name: "HTTP", package: "Stream")]),
    ("FuzzChunkedDecoder", [.product(name: "HTTP", package: "Stream")]),
    ("FuzzWebSocketFrameDecoder", [.product(name: "WebSocket", package: "Stream")]),
    ("FuzzLiveRequest", [.product(name: "LiveProtocol", package: "Stream")]),
    ("FuzzShowsFile", [.product(name: "LiveShows", package: "Stream")]),
]

let package = Package(
    name: "StreamFuzz",
    platforms: [.macOS(.v15)],
    products: fuzzTargets.map { .executable(name: $0.name, targets: [$0.name]) }
        + [.executable(name: "MakeCorpus", targets: ["MakeCorpus"])],
    dependencies: [.package(path: "Stream")],
    targets: [
        .target(name: "FuzzSupport"),
        .executableTarget(
            name: "MakeCorpus",
            dependencies: ["FuzzSupport", .product(name: "RTMP", package: "Stream"),
                           .product(name: "FLV", package: "Stream"), .product(name: "StreamCore", package: "Stream"),
                           .product(name: "SDP", package: "Stream"), .product(name: "ICE", package: "Stream"),
                           .product(name: "RTP", package: "Stream"),
                           .product(name: "HTTP", package: "Stream"), .product(name: "WebSocket", package: "Stream"),
                           .product(name: "LiveProtocol", package: "Stream")]),
    ] + fuzzTargets.map { .executableTarget(name: $0.name, dependencies: ["FuzzSupport"] + $0.dependencies) },
    swiftLanguageModes: [.v6]
)
