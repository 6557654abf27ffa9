// swift-tools-version:6.0
// Stream: a live-broadcasting stack. Targets are grouped by layer (`layers` at the end gives each its folder) and
// import only their own layer and those below; docs/architecture.md draws the graph and scripts/check-deps checks it.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// The relay's event-loop targets: in release builds, without the runtime's exclusivity checks on class properties
/// (swift_beginAccess on each access to a connection's or stream's state, several per relayed message: 7 % of a
/// relay's instructions). Debug builds, which the tests run, keep the checks.
let loopThread: [SwiftSetting] = strict + [
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release)),
]

let package = Package(
    name: "Stream",
    platforms: [.macOS(.v15), .iOS(.v18)],
    // What a user of the package links (the rest are internal targets): the SDK apps link, the pure codecs, the
    // server pieces an app would embed, Linux's broadcaster, and the command.
    products: [
        // The client SDK (the iOS app and extension link it): the settings model, the RTMP publisher and engine,
        // frames and encoders, the live-show client and the app's decisions.
        .library(name: "StreamKit", targets: ["StreamCore", "Media", "Encoders", "FLV", "RTMP", "Publisher", "Engine",
                                              "LiveProtocol", "RealtimeCalls", "AppLogic"]),
        // The pure codecs and state machines, for tools and fuzzing.
        .library(name: "StreamWire", targets: ["ByteIO", "Digest", "JSON", "AMF", "FLV", "MP4", "HLS", "RTMP", "HTTP",
                                               "WebSocket", "SDP", "ICE", "RTP", "WHIP", "LiveProtocol", "LiveShows",
                                               "Identity", "StreamCore", "Metrics"]),
        // What `stream serve` is made of: the RTMP ingest, HTTP and WebSocket, LL-HLS, live shows and their store.
        .library(name: "StreamServer", targets: ["Transport", "IngestServer", "HTTPServer", "LiveHLS", "ShowServer",
                                                 "SQLiteShowStore", "PostgresShowStore", "WebRTCServer",
                                                 "WebAssets"]),
        // Going live from Linux: capture, the broadcaster, WebRTC (WHIP) and live shows' hosts.
        .library(name: "StreamBroadcast", targets: ["Capture", "Broadcast", "WebRTC", "RealtimeBroadcast"]),
        .executable(name: "stream", targets: ["stream"]),
    ],
    targets: [
        // MARK: C system libraries (Linux). Macros Swift cannot import get static inline shims in shim.h.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CEpoll"),
        .systemLibrary(name: "CX264",  // no pkgConfig: x264.pc adds a flag SwiftPM prohibits
                       providers: [.apt(["libx264-dev"])]),
        // VisualOn's AAC-LC encoder: one small library, where libavcodec maps ~70 others (16 MB of RSS) for it.
        .systemLibrary(name: "CVOAACEnc", pkgConfig: "vo-aacenc",
                       providers: [.apt(["libvo-aacenc-dev"])]),
        .systemLibrary(name: "CYUV", providers: [.apt(["libyuv-dev"])]),
        .systemLibrary(name: "CXCB", pkgConfig: "xcb-shm",
                       providers: [.apt(["libxcb1-dev", "libxcb-shm0-dev", "libxcb-xfixes0-dev"])]),
        // PulseAudio (libpulse-dev), loaded with dlopen at the first call (see Sources/System/CPulse/PulseLoader.c).
        // dlopen at a library's first call, for the C modules only some commands need (CPulse, CFAAD, CAVCodec).
        .target(name: "CLazyLibrary"),
        .target(name: "CPulse", dependencies: ["CLazyLibrary"]),
        .systemLibrary(name: "CV4L2"),
        // FAAD2's AAC decoder (libfaad-dev), loaded with dlopen at the first call (Sources/System/CFAAD/FAADLoader.c):
        // an RTMP publish's sound for WebRTC players. FAAD2 is one small library; libavcodec would map ~70 others.
        .target(name: "CFAAD", dependencies: ["CLazyLibrary"]),
        // libavcodec's H.264 decoder (libavcodec-dev) and libjpeg-turbo's TurboJPEG (libturbojpeg0-dev), loaded with
        // dlopen at the first call (Sources/System/CAVCodec, CTurboJPEG): the server's posters; never a broadcast.
        .target(name: "CAVCodec", dependencies: ["CLazyLibrary"]),
        .target(name: "CTurboJPEG", dependencies: ["CLazyLibrary"]),
        .systemLibrary(name: "COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),
        // SQLite (libsqlite3-dev), the default show store, and libpq (libpq-dev), the shared one (`stream serve
        // --store postgres://...`), loaded with dlopen at the first call (Sources/System/CSQLite, CPostgres): a
        // broadcast maps neither, nor what libpq pulls in (Kerberos, LDAP, GnuTLS).
        .target(name: "CSQLite", dependencies: ["CLazyLibrary"]),
        .target(name: "CPostgres", dependencies: ["CLazyLibrary"]),
        // glibc's malloc_trim: the servers hand freed buffers back to the system after peers leave.
        .systemLibrary(name: "CMalloc"),
        // A C file of our own: TCP_INFO needs <linux/tcp.h>, whose struct clashes with glibc's in a module map.
        .target(name: "CTCPInfo"),

        // MARK: Base: bytes, hashes, JSON, locks, the settings model.
        // A value behind a pthread mutex (what ThreadSanitizer can see, unlike Synchronization.Mutex on Linux).
        .target(name: "Locking", swiftSettings: strict),
        // Foundation-only model shared by every layer and by the iOS app.
        .target(name: "StreamCore", dependencies: ["Locking"], swiftSettings: strict),
        .target(name: "ByteIO", swiftSettings: strict),
        // Hashes in pure Swift (SHA-256, HMAC-SHA256): the RTMP handshake, key tags, and later WebSocket and tokens.
        .target(name: "Digest", swiftSettings: strict),
        // JSON (RFC 8259) values, a strict parser with line numbers, a compact writer.
        .target(name: "JSON", dependencies: ["ByteIO"], swiftSettings: strict),

        // MARK: Wire: pure codecs and state machines. No I/O, no Foundation, no Dispatch; time is passed in.
        .target(name: "AMF", dependencies: ["ByteIO"], swiftSettings: strict),
        // HS256 JWT access tokens (RFC 7515/7519) and the secret they are signed with.
        .target(name: "Identity", dependencies: ["JSON", "Digest"], swiftSettings: strict),
        // The live-show protocol's values and JSON codec (docs/live-protocol.md), for the server and clients.
        .target(name: "LiveProtocol", dependencies: ["JSON"], swiftSettings: strict),
        // Live shows without I/O: declarations, roles, one state machine per show, the store protocol.
        .target(name: "LiveShows", dependencies: ["LiveProtocol", "Identity", "JSON", "Digest", "ByteIO"],
                swiftSettings: strict),
        .target(name: "FLV", dependencies: ["ByteIO", "AMF"], swiftSettings: strict),
        .target(name: "RTMP", dependencies: ["ByteIO", "AMF", "Digest"], swiftSettings: strict),
        // HTTP/1.1 (RFC 9110/9112) and WebSocket (RFC 6455) codecs and connection state machines.
        .target(name: "HTTP", dependencies: ["ByteIO"], swiftSettings: strict),
        .target(name: "WebSocket", dependencies: ["ByteIO", "HTTP", "Digest"], swiftSettings: strict),
        // fMP4/CMAF from FLV tags: init segments and movie fragments (ISO/IEC 14496-12, -14, -15).
        .target(name: "MP4", dependencies: ["ByteIO", "FLV"], swiftSettings: strict),
        .target(name: "HLS", dependencies: ["MP4", "FLV"], swiftSettings: strict),
        // WebRTC without I/O: SDP offers and answers for WHIP, STUN and the ICE agent, RTP/RTCP and payloaders.
        .target(name: "SDP", dependencies: ["ByteIO"], swiftSettings: strict),
        .target(name: "ICE", dependencies: ["Digest", "ByteIO", "SDP"], swiftSettings: strict),
        .target(name: "RTP", dependencies: ["ByteIO"], swiftSettings: strict),
        // WHIP's HTTP exchange (RFC 9725) without I/O: the requests to send and what the responses mean.
        .target(name: "WHIP", swiftSettings: strict),
        // Metrics as Prometheus's text exposition format (0.0.4): families, histograms, the writer.
        .target(name: "Metrics", swiftSettings: strict),

        // MARK: IO: sockets on the epoll loop, TLS, DTLS-SRTP, files. No protocol decisions.
        // An FLV file on disk written tag by tag (whole tags, metadata patched at the end): both recorders use it.
        .target(name: "Recording", dependencies: ["FLV", "AMF", "MP4"], swiftSettings: strict),
        // Non-blocking sockets on an epoll loop, TLS through OpenSSL. No protocol knowledge.
        .target(name: "Transport",
                dependencies: [
                    "Locking", "ByteIO",
                    .target(name: "CMalloc", condition: .when(platforms: [.linux])),
                    .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
                    .target(name: "CEpoll", condition: .when(platforms: [.linux])),
                    .target(name: "CTCPInfo", condition: .when(platforms: [.linux])),
                ],
                swiftSettings: loopThread),
        // WebRTC's C edge: DTLS-SRTP through OpenSSL memory BIOs, SRTP on OpenSSL's AES and HMAC, Opus through libopus.
        .target(name: "DTLS", dependencies: [.target(name: "COpenSSL", condition: .when(platforms: [.linux]))],
                swiftSettings: strict),
        .target(name: "SRTP", dependencies: [.target(name: "COpenSSL", condition: .when(platforms: [.linux]))],
                swiftSettings: strict),

        // MARK: Media: frames, encoders, capture devices.
        .target(name: "Opus",
                dependencies: ["Encoders", .target(name: "COpus", condition: .when(platforms: [.linux]))],
                swiftSettings: strict),
        // Frames, pixel buffer pools, conversion/scaling (libyuv on Linux), the PiP compositor, the audio mixer, test
        // sources.
        .target(name: "Media",
                dependencies: [.target(name: "CYUV", condition: .when(platforms: [.linux])), "Locking"],
                swiftSettings: strict),
        // Encoders: H.264 (x264 on Linux) and AAC (vo-aacenc on Linux) behind small protocols, and the AAC decoder
        // (FAAD2 on Linux) the server needs for WebRTC players of RTMP publishes.
        .target(name: "Encoders",
                dependencies: [
                    "Locking",
                    .target(name: "CX264", condition: .when(platforms: [.linux])),
                    .target(name: "CVOAACEnc", condition: .when(platforms: [.linux])),
                    .target(name: "CFAAD", condition: .when(platforms: [.linux])),
                ],
                swiftSettings: strict),
        // Posters: one H.264 keyframe decoded (libavcodec) and compressed as a JPEG (libjpeg-turbo), for the server.
        .target(name: "Posters",
                dependencies: [.target(name: "CAVCodec", condition: .when(platforms: [.linux])),
                               .target(name: "CTurboJPEG", condition: .when(platforms: [.linux]))],
                swiftSettings: strict),
        // Linux capture: X11 screen (xcb + MIT-SHM), PulseAudio inputs and system audio, V4L2 cameras, Y4M files.
        .target(name: "Capture",
                dependencies: [
                    "Media", "Locking",
                    .target(name: "CYUV", condition: .when(platforms: [.linux])),
                    .target(name: "CXCB", condition: .when(platforms: [.linux])),
                    .target(name: "CPulse", condition: .when(platforms: [.linux])),
                    .target(name: "CV4L2", condition: .when(platforms: [.linux])),
                ],
                swiftSettings: strict),

        // MARK: Drivers: the machines above run on the I/O below (servers, clients, stores, the engine).
        // The live-show driver: shows on an event loop, the store on a worker thread, the ingest's key checks.
        .target(name: "ShowServer",
                dependencies: ["LiveShows", "LiveProtocol", "Identity", "IngestServer", "HTTPServer", "WebSocket",
                               "Transport", "Locking", "ByteIO", "HTTP", "JSON", "Metrics"],
                swiftSettings: strict),
        // The default show store: SQLite (WAL, schema migrations) under --data-dir.
        .target(name: "SQLiteShowStore", dependencies: ["LiveShows", "LiveProtocol", "CSQLite"],
                swiftSettings: strict),
        // The show store several nodes share: PostgreSQL through libpq (ids and order from the database, migrations
        // under an advisory lock).
        .target(name: "PostgresShowStore",
                dependencies: ["LiveShows", "LiveProtocol", "CPostgres"],
                swiftSettings: strict),
        // The LL-HLS origin: packagers fed by the ingest, and players' requests held until their part exists.
        .target(name: "LiveHLS", dependencies: ["HLS", "FLV", "Locking", "Transport"], swiftSettings: strict),
        // The WebRTC publisher: ICE, DTLS, SRTP and RTP over a UDP socket on the Transport event loop; WHIP as an
        // output of the engine over the HTTP client.
        .target(name: "WebRTC",
                dependencies: ["SDP", "ICE", "RTP", "DTLS", "SRTP", "WHIP", "Transport", "Encoders", "FLV", "Engine",
                               "HTTPClient", "HTTP", "Locking", "StreamCore", "ByteIO"],
                swiftSettings: strict),
        // The WebRTC server: every WHIP and WHEP session on one UDP port (ICE-lite, DTLS server, SRTP), forwarding
        // to WHEP players, and the WHIP and WHEP routes.
        .target(name: "WebRTCServer",
                dependencies: ["SDP", "ICE", "RTP", "FLV", "DTLS", "SRTP", "Transport", "HTTPServer", "HTTP", "ByteIO",
                               "Opus", "Encoders", "Media"],
                swiftSettings: strict),
        // The RTMP client over any byte stream (portable: the iOS extension links it); Linux's TCP/TLS stream in
        // TCPConnector.swift is the one file that needs Transport.
        .target(name: "Publisher",
                dependencies: ["StreamCore", "RTMP", "FLV", "Locking",
                               .target(name: "Transport", condition: .when(platforms: [.linux]))],
                swiftSettings: strict),
        .target(name: "IngestServer",
                dependencies: ["RTMP", "FLV", "Recording", "AMF", "Transport", "Digest", "Locking", "ByteIO"],
                swiftSettings: loopThread),
        // HTTP/1.1 and WebSocket machines on the transport (server; client).
        .target(name: "HTTPServer", dependencies: ["HTTP", "WebSocket", "Transport", "Locking"],
                swiftSettings: strict),
        .target(name: "HTTPClient", dependencies: ["HTTP", "WebSocket", "Transport", "Locking"],
                swiftSettings: strict),
        // The output layer both platforms run (the iOS extension links it): send queues and their drop policy,
        // adaptive bitrate, reconnects, the per-destination outputs over `MediaSink` (RTMP over any byte stream, an
        // FLV file), statistics, status text, and the encode driver over the Encoders protocols and Media's mixer.
        // No C module of its own, no capture, no Transport.
        .target(name: "Engine", dependencies: ["StreamCore", "FLV", "Recording", "Publisher", "Locking", "Encoders",
                                            "Media"],
                swiftSettings: strict),
        // Linux's broadcaster: sources (test patterns, X11, PulseAudio, V4L2/Y4M) → PiP → x264/AAC on a real-time
        // thread → the engine.
        .target(name: "Broadcast",
                dependencies: ["StreamCore", "Media", "Encoders", "FLV", "Publisher", "Engine", "Capture", "Locking",
                               "Opus"],
                swiftSettings: strict),

        // MARK: Clients: what apps link.
        // The live-show client (seed 004's API) for apps and the CLI: the show object over the protocol's codec,
        // reconnecting and resynchronising. No C module (the app links it): Stream's WebSocketClient on Linux,
        // URLSessionWebSocketTask on Apple platforms.
        .target(name: "RealtimeCalls",
                dependencies: ["LiveProtocol", "JSON", "Digest", "StreamCore", "Locking",
                               .target(name: "HTTPClient", condition: .when(platforms: [.linux])),
                               .target(name: "HTTP", condition: .when(platforms: [.linux]))],
                swiftSettings: strict),
        // Going live from Linux through RealtimeCalls with Stream's engine (test sources, X11, V4L2/Y4M, PulseAudio).
        .target(name: "RealtimeBroadcast",
                dependencies: ["RealtimeCalls", "LiveProtocol", "Broadcast", "Engine", "Publisher", "StreamCore",
                               "Locking"],
                swiftSettings: strict),
        // Decisions of the iOS app and broadcast extension, kept out of the Apple-only shell so they are tested here.
        .target(name: "AppLogic", dependencies: ["StreamCore", "Media", "Encoders", "Engine", "Publisher",
                                              "LiveProtocol", "RealtimeCalls"],
                swiftSettings: strict),

        // MARK: Apps: the command-line tool, its web pages, the benchmark program.
        // The web front end (LL-HLS player, pages), embedded in the binary at build time.
        .target(name: "WebAssets",
                resources: [.embedInCode("Web/hls-player.js"), .embedInCode("Web/hls.html"),
                            .embedInCode("Web/hls-page.js"), .embedInCode("Web/hls.css"),
                            .embedInCode("Web/watch.html"), .embedInCode("Web/watch.js"),
                            .embedInCode("Web/watch.css")],
                swiftSettings: strict),
        // The command-line tool: a tested library and a one-file executable.
        .target(name: "StreamCLI",
                dependencies: ["StreamCore", "Publisher", "IngestServer", "Transport", "Engine", "Broadcast", "Capture",
                               "Locking", "HTTP", "HTTPServer", "Identity", "LiveShows", "ShowServer",
                               "SQLiteShowStore", "PostgresShowStore", "RealtimeCalls", "RealtimeBroadcast",
                               "LiveProtocol", "JSON",
                               "LiveHLS", "WebAssets", "WebRTC", "WebRTCServer", "WHIP", "HTTPClient", "ICE",
                               "Recording", "ByteIO", "Metrics", "Digest", "FLV", "Posters", "HLS", "MP4"],
                swiftSettings: strict),
        .executableTarget(name: "stream", dependencies: ["StreamCLI"], swiftSettings: strict),
        // The benchmark harness's measuring program (scripts/bench.sh runs it in release mode beside ffmpeg/nginx).
        .executableTarget(name: "stream-bench",
                          dependencies: ["Media", "Encoders", "FLV", "RTMP", "AMF", "Publisher", "Engine",
                                         "Broadcast", "Capture", "StreamCore", "Locking", "Transport", "HTTP",
                                         "WebSocket", "HTTPServer", "HTTPClient", "Identity", "IngestServer",
                                         "Digest", "Posters"], swiftSettings: strict),

        // MARK: Tests. The shared harness starts nginx-rtmp, ffmpeg, openssl and the other peers on loopback.
        .target(name: "TestSupport", dependencies: ["Locking", "FLV", "LiveShows", "LiveProtocol"],
                exclude: ["Peers"],
                swiftSettings: strict),
        .testTarget(name: "StreamCoreTests", dependencies: ["StreamCore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ByteIOTests", dependencies: ["ByteIO"], swiftSettings: strict),
        .testTarget(name: "LockingTests", dependencies: ["Locking"], swiftSettings: strict),
        .testTarget(name: "AMFTests", dependencies: ["AMF", "ByteIO"], swiftSettings: strict),
        .testTarget(name: "FLVTests", dependencies: ["FLV", "AMF", "ByteIO", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "RecordingTests", dependencies: ["Recording", "FLV", "AMF", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "RTMPTests", dependencies: ["RTMP", "AMF", "Digest"], swiftSettings: strict),
        .testTarget(name: "PublisherTests", dependencies: ["Publisher", "StreamCore", "Locking"],
                    swiftSettings: strict),
        .testTarget(name: "MP4Tests", dependencies: ["MP4", "FLV", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "HLSTests", dependencies: ["HLS", "MP4", "FLV", "ByteIO", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "LiveHLSTests", dependencies: ["LiveHLS", "HLS", "FLV", "Locking", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "WebAssetsTests", dependencies: ["WebAssets"], swiftSettings: strict),
        .testTarget(name: "DigestTests", dependencies: ["Digest"], swiftSettings: strict),
        .testTarget(name: "SDPTests", dependencies: ["SDP", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ICETests", dependencies: ["ICE", "ByteIO", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "RTPTests", dependencies: ["RTP"], swiftSettings: strict),
        .testTarget(name: "WHIPTests", dependencies: ["WHIP"], swiftSettings: strict),
        .testTarget(name: "WebRTCTests",
                    dependencies: ["WebRTC", "WHIP", "Encoders", "Media", "Opus", "Transport", "Locking",
                                   "TestSupport", "stream"],
                    swiftSettings: strict),
        .testTarget(name: "WebRTCServerTests",
                    dependencies: ["WebRTCServer", "HTTPServer", "HTTP", "FLV", "RTP", "ICE", "DTLS", "Locking",
                                   "TestSupport", "stream", "Opus", "Encoders", "Media"],
                    swiftSettings: strict),
        .testTarget(name: "DTLSTests", dependencies: ["DTLS", "SRTP", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "OpusTests",
                    dependencies: ["Opus", "Encoders", "Media",
                                   .target(name: "COpus", condition: .when(platforms: [.linux]))],
                    swiftSettings: strict),
        .testTarget(name: "JSONTests", dependencies: ["JSON"], swiftSettings: strict),
        .testTarget(name: "MetricsTests", dependencies: ["Metrics"], swiftSettings: strict),
        .testTarget(name: "IdentityTests", dependencies: ["Identity", "JSON"], swiftSettings: strict),
        .testTarget(name: "LiveProtocolTests", dependencies: ["LiveProtocol"], swiftSettings: strict),
        .testTarget(name: "LiveShowsTests", dependencies: ["LiveShows", "LiveProtocol", "Identity"],
                    swiftSettings: strict),
        .testTarget(name: "ShowServerTests",
                    dependencies: ["ShowServer", "SQLiteShowStore", "LiveShows", "LiveProtocol", "Identity", "Locking",
                                   "IngestServer", "Metrics", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "SQLiteShowStoreTests",
                    dependencies: ["SQLiteShowStore", "LiveShows", "LiveProtocol", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "PostgresShowStoreTests",
                    dependencies: ["PostgresShowStore", "LiveShows", "LiveProtocol", "Locking", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "WebSocketTests", dependencies: ["WebSocket", "HTTP", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "HTTPClientTests",
                    dependencies: ["HTTPClient", "HTTP", "WebSocket", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "HTTPServerTests",
                    dependencies: ["HTTPServer", "HTTPClient", "HTTP", "WebSocket", "Transport", "Locking",
                                   "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "ByteIO", "Locking", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "MediaTests", dependencies: ["Media", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "EncodersTests", dependencies: ["Encoders"], swiftSettings: strict),
        .testTarget(name: "BroadcastTests",
                    dependencies: ["Broadcast", "Engine", "IngestServer", "TestSupport", "Locking", "Media",
                                   "Publisher", "StreamCore"],
                    swiftSettings: strict),
        .testTarget(name: "EngineTests",
                    dependencies: ["Engine", "Publisher", "FLV", "StreamCore", "IngestServer", "Locking",
                                   "TestSupport", "Encoders"],
                    swiftSettings: strict),
        .testTarget(name: "CaptureTests",
                    dependencies: ["Capture", "TestSupport", "CV4L2", "Locking", "Media"],
                    swiftSettings: strict),
        .testTarget(name: "AppLogicTests", dependencies: ["AppLogic", "Media", "Encoders", "Engine", "Publisher",
                                                          "StreamCore", "LiveProtocol", "RealtimeCalls"],
                    swiftSettings: strict),
        .testTarget(name: "RealtimeCallsTests",
                    dependencies: ["RealtimeCalls", "LiveProtocol", "Identity", "Locking", "Digest", "TestSupport",
                                   "stream"],
                    swiftSettings: strict),
        .testTarget(name: "StreamCLITests",
                    dependencies: ["StreamCLI", "Capture", "Media", "StreamCore", "stream", "TestSupport", "Identity",
                                   "LiveProtocol", "LiveShows", "RealtimeCalls", "HTTPServer", "IngestServer",
                                   "Transport", "JSON", "Locking", "LiveHLS", "Posters", "FLV"],
                    swiftSettings: strict),
        .testTarget(name: "IntegrationTests",
                    dependencies: ["StreamCore", "AMF", "FLV", "RTMP", "Transport", "Publisher", "IngestServer",
                                   "StreamCLI", "Broadcast", "Engine", "Media", "Locking", "TestSupport", "stream",
                                   "ByteIO"],
                    swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)

/// The layers, lowest first (docs/architecture.md): a target's folder is `Sources/LAYER/NAME`, its tests'
/// `Tests/LAYER/NAMETests`. A target imports only its own layer and those below (scripts/check-deps).
let layers: [(name: String, targets: [String])] = [
    // C system libraries and shims (Linux).
    ("System", ["COpenSSL", "CEpoll", "CX264", "CVOAACEnc", "CYUV", "CXCB", "CLazyLibrary", "CPulse", "CV4L2", "CFAAD",
                "CAVCodec", "CTurboJPEG", "COpus", "CSQLite", "CPostgres", "CMalloc", "CTCPInfo"]),
    // What every layer uses: bytes, hashes, JSON, locks, the settings model.
    ("Base", ["ByteIO", "Digest", "JSON", "Locking", "StreamCore"]),
    // Pure codecs and state machines: no I/O, no Foundation, no Dispatch.
    ("Wire", ["AMF", "FLV", "MP4", "HLS", "RTMP", "HTTP", "WebSocket", "SDP", "ICE", "RTP", "WHIP", "LiveProtocol",
              "LiveShows", "Identity", "Metrics"]),
    // Sockets on the epoll loop, TLS, DTLS-SRTP, files.
    ("IO", ["Transport", "DTLS", "SRTP", "Recording"]),
    // Frames, encoders, capture devices.
    ("Media", ["Media", "Encoders", "Opus", "Capture", "Posters"]),
    // Servers, clients, stores and the broadcast engine: the machines above driven by the I/O below.
    ("Drivers", ["IngestServer", "HTTPServer", "HTTPClient", "Publisher", "LiveHLS", "ShowServer", "SQLiteShowStore",
                 "PostgresShowStore", "Engine", "WebRTC", "WebRTCServer", "Broadcast"]),
    // What apps link: the live-show client and the app's decisions.
    ("Clients", ["RealtimeCalls", "RealtimeBroadcast", "AppLogic"]),
    // The command-line tool, its web pages and the benchmark program.
    ("Apps", ["StreamCLI", "stream", "StreamBench", "WebAssets"]),
]
let layerOf = Dictionary(uniqueKeysWithValues: layers.flatMap { layer in layer.targets.map { ($0, layer.name) } })

for target in package.targets {
    let folder = target.name == "stream-bench" ? "StreamBench" : target.name
    switch (target.type, folder) {
    case (_, "TestSupport"): target.path = "Tests/Support/TestSupport"
    case (.test, "IntegrationTests"): target.path = "Tests/Integration/IntegrationTests"
    case (.test, _):
        guard let layer = layerOf[String(folder.dropLast("Tests".count))] else {
            fatalError("\(folder) tests no target of a layer: add it to `layers` in Package.swift")
        }
        target.path = "Tests/\(layer)/\(folder)"
    default:
        guard let layer = layerOf[folder] else {
            fatalError("\(folder) has no layer: add it to `layers` in Package.swift")
        }
        target.path = "Sources/\(layer)/\(folder)"
    }
}
