// swift-tools-version:6.0
// Stream: a live-broadcasting stack. One target per layer; imports flow one way (see ARCHITECTURE in README).
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Stream",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "StreamCore", targets: ["StreamCore"]),
        .library(name: "ByteIO", targets: ["ByteIO"]),
        .library(name: "Digest", targets: ["Digest"]),
        .library(name: "AMF", targets: ["AMF"]),
        .library(name: "FLV", targets: ["FLV"]),
        .library(name: "RTMP", targets: ["RTMP"]),
        .library(name: "MP4", targets: ["MP4"]),
        .library(name: "HLS", targets: ["HLS"]),
        .library(name: "WebAssets", targets: ["WebAssets"]),
        .library(name: "LiveHLS", targets: ["LiveHLS"]),
        .library(name: "Transport", targets: ["Transport"]),
        .library(name: "Publisher", targets: ["Publisher"]),
        .library(name: "IngestServer", targets: ["IngestServer"]),
        .library(name: "Media", targets: ["Media"]),
        .library(name: "Encoders", targets: ["Encoders"]),
        .library(name: "Broadcast", targets: ["Broadcast"]),
        .library(name: "Capture", targets: ["Capture"]),
        .library(name: "AppLogic", targets: ["AppLogic"]),
        .executable(name: "stream", targets: ["stream"]),
    ],
    targets: [
        // C system libraries (Linux). Macros Swift cannot import get static inline shims in shim.h.
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        .systemLibrary(name: "CX264", path: "Sources/CX264",  // no pkgConfig: x264.pc adds a flag SwiftPM prohibits
                       providers: [.apt(["libx264-dev"])]),
        .systemLibrary(name: "CFFmpeg", path: "Sources/CFFmpeg", pkgConfig: "libavcodec",
                       providers: [.apt(["libavcodec-dev", "libavutil-dev", "libswresample-dev"])]),
        .systemLibrary(name: "CYUV", path: "Sources/CYUV", providers: [.apt(["libyuv-dev"])]),
        .systemLibrary(name: "CXCB", path: "Sources/CXCB", pkgConfig: "xcb-shm",
                       providers: [.apt(["libxcb1-dev", "libxcb-shm0-dev", "libxcb-xfixes0-dev"])]),
        // no pkgConfig: libpulse.pc adds -D_REENTRANT -pthread, which SwiftPM prohibits
        .systemLibrary(name: "CPulse", path: "Sources/CPulse",
                       providers: [.apt(["libpulse-dev"])]),
        .systemLibrary(name: "CV4L2", path: "Sources/CV4L2"),
        // glibc's malloc_trim: the ingest server hands freed buffers back to the system after peers leave.
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        // A C file of our own: TCP_INFO needs <linux/tcp.h>, whose struct clashes with glibc's in a module map.
        .target(name: "CTCPInfo", path: "Sources/CTCPInfo"),

        // A value behind a pthread mutex (what ThreadSanitizer can see, unlike Synchronization.Mutex on Linux).
        .target(name: "Locking", swiftSettings: strict),

        // Foundation-only model shared by every layer and by the iOS app.
        .target(name: "StreamCore", dependencies: ["Locking"], swiftSettings: strict),

        // Pure codecs and state machines: no I/O, no Foundation networking, no Dispatch.
        .target(name: "ByteIO", swiftSettings: strict),
        // Hashes in pure Swift (SHA-256, HMAC-SHA256): the RTMP handshake, key tags, and later WebSocket and tokens.
        .target(name: "Digest", swiftSettings: strict),
        .target(name: "AMF", dependencies: ["ByteIO"], swiftSettings: strict),
        .target(name: "FLV", dependencies: ["ByteIO", "AMF"], swiftSettings: strict),
        .target(name: "RTMP", dependencies: ["ByteIO", "AMF", "FLV", "Digest"], swiftSettings: strict),
        // fMP4/CMAF from FLV tags: init segments and movie fragments (ISO/IEC 14496-12, -14, -15).
        .target(name: "MP4", dependencies: ["ByteIO", "FLV"], swiftSettings: strict),
        .target(name: "HLS", dependencies: ["MP4", "FLV"], swiftSettings: strict),
        // The LL-HLS origin: packagers fed by the ingest, and players' requests held until their part exists.
        .target(name: "LiveHLS", dependencies: ["HLS", "FLV", "Locking"], swiftSettings: strict),
        // The web front end (LL-HLS player, pages), embedded in the binary at build time.
        .target(name: "WebAssets",
                resources: [.embedInCode("Web/hls-player.js"), .embedInCode("Web/hls.html")],
                swiftSettings: strict),

        // I/O: non-blocking sockets on an epoll loop, TLS through OpenSSL. No protocol knowledge.
        .target(name: "Transport",
                dependencies: [
                    "Locking",
                    .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
                    .target(name: "CEpoll", condition: .when(platforms: [.linux])),
                    .target(name: "CTCPInfo", condition: .when(platforms: [.linux])),
                ],
                swiftSettings: strict),

        // Media: frames, pixel buffer pools, conversion/scaling (libyuv on Linux), the PiP compositor, test sources.
        .target(name: "Media",
                dependencies: [.target(name: "CYUV", condition: .when(platforms: [.linux])), "StreamCore"],
                swiftSettings: strict),
        // Encoders: H.264 (x264 on Linux) and AAC (libavcodec on Linux) behind small protocols.
        .target(name: "Encoders",
                dependencies: [
                    "Media",
                    .target(name: "CX264", condition: .when(platforms: [.linux])),
                    .target(name: "CFFmpeg", condition: .when(platforms: [.linux])),
                ],
                swiftSettings: strict),

        // Drivers: an RTMP machine fed by a transport.
        .target(name: "Publisher", dependencies: ["StreamCore", "RTMP", "FLV", "Transport"], swiftSettings: strict),
        .target(name: "IngestServer",
                dependencies: ["RTMP", "FLV", "AMF", "Transport", "Digest", "Locking",
                               .target(name: "CMalloc", condition: .when(platforms: [.linux]))],
                swiftSettings: strict),

        // The live session: capture → composite → encode → publish, with backpressure, reconnect and stats.
        .target(name: "Broadcast",
                dependencies: ["StreamCore", "Media", "Encoders", "FLV", "Publisher", "Capture"],
                swiftSettings: strict),

        // Linux capture: X11 screen (xcb + MIT-SHM), PulseAudio inputs and system audio, V4L2 cameras, Y4M files.
        .target(name: "Capture",
                dependencies: [
                    "StreamCore", "Media",
                    .target(name: "CXCB", condition: .when(platforms: [.linux])),
                    .target(name: "CPulse", condition: .when(platforms: [.linux])),
                    .target(name: "CV4L2", condition: .when(platforms: [.linux])),
                ],
                swiftSettings: strict),

        // Decisions of the iOS app and broadcast extension, kept out of the Apple-only shell so they are tested here.
        .target(name: "AppLogic", dependencies: ["StreamCore", "Media", "RTMP"], swiftSettings: strict),

        // The command-line tool: a tested library and a one-file executable.
        .target(name: "StreamCLI",
                dependencies: ["StreamCore", "Publisher", "IngestServer", "FLV", "Broadcast", "Capture"],
                swiftSettings: strict),
        .executableTarget(name: "stream", dependencies: ["StreamCLI"], swiftSettings: strict),
        // The benchmark harness's measuring program (scripts/bench.sh runs it in release mode beside ffmpeg/nginx).
        .executableTarget(name: "stream-bench",
                          dependencies: ["Media", "Encoders", "FLV", "RTMP", "AMF", "Publisher", "IngestServer",
                                         "Broadcast", "Capture", "StreamCore"],
                          path: "Sources/StreamBench", swiftSettings: strict),

        // Shared test harness: starts nginx-rtmp, ffmpeg/ffprobe and openssl as real peers on loopback.
        .target(name: "TestSupport", dependencies: ["Locking", "FLV"], path: "Tests/TestSupport", exclude: ["Peers"],
                swiftSettings: strict),

        .testTarget(name: "StreamCoreTests", dependencies: ["StreamCore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ByteIOTests", dependencies: ["ByteIO"], swiftSettings: strict),
        .testTarget(name: "LockingTests", dependencies: ["Locking"], swiftSettings: strict),
        .testTarget(name: "AMFTests", dependencies: ["AMF"], swiftSettings: strict),
        .testTarget(name: "FLVTests", dependencies: ["FLV"], swiftSettings: strict),
        .testTarget(name: "RTMPTests", dependencies: ["RTMP", "Digest"], swiftSettings: strict),
        .testTarget(name: "MP4Tests", dependencies: ["MP4", "FLV", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "HLSTests", dependencies: ["HLS", "MP4", "FLV", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "LiveHLSTests", dependencies: ["LiveHLS", "HLS", "FLV", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "WebAssetsTests", dependencies: ["WebAssets"], swiftSettings: strict),
        .testTarget(name: "DigestTests", dependencies: ["Digest"], swiftSettings: strict),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "Locking"], swiftSettings: strict),
        .testTarget(name: "MediaTests", dependencies: ["Media"], swiftSettings: strict),
        .testTarget(name: "EncodersTests", dependencies: ["Encoders", "FLV"], swiftSettings: strict),
        .testTarget(name: "BroadcastTests", dependencies: ["Broadcast", "IngestServer", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "AppLogicTests", dependencies: ["AppLogic"], swiftSettings: strict),
        .testTarget(name: "StreamCLITests", dependencies: ["StreamCLI", "Broadcast", "stream", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "IntegrationTests",
                    dependencies: ["StreamCore", "AMF", "FLV", "RTMP", "Transport", "Publisher", "IngestServer",
                                   "StreamCLI", "TestSupport", "stream"],
                    swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
