#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import HTTPServer
import IngestServer
import Locking
import StreamCore
import WebRTCServer

/// `stream demo`'s built-in server: the RTMP ingest (recording), the demo show, LL-HLS, WebRTC (the show's WHIP and
/// WHEP on a free UDP port) and the HTTP listener with the show's watch page — `stream serve --shows` in-process, on
/// loopback.
final class DemoServer: Sendable {
    /// Where the broadcast publishes.
    let ingestURL: IngestURL
    /// The watch page's address, e.g. "http://127.0.0.1:8080/watch/demo".
    let watchPage: String
    /// The show's status for a show card (JSON); its poster is `showCard + "/poster.jpg"`.
    let showCard: String
    /// The show the broadcast hosts.
    let show: DemoShow
    /// The host's page: the watch page with a development token for the demo's host in its fragment (the secret
    /// lives in this process only, so the link is good for this run alone).
    let hostPage: String
    private let ingest: RTMPServer
    private let http: HTTPServer?
    private let webRTC: WebRTCServer?
    private let showData: String
    private let recordings = Locked<[String]>([])
    private let failures = Locked<[String]>([])

    /// Starts everything and prints where the ingest and the HTTP listener are.
    /// - Parameters:
    ///   - recordDirectory: where the ingest records.
    ///   - listener: the HTTP listener's configuration.
    /// - Throws: `CLIError.failure` when a part cannot start (what started is stopped).
    init(recordDirectory: String, http listener: HTTPServer.Configuration, console: Console) throws {
        let recordings = self.recordings
        let failures = self.failures
        var configuration = RTMPServer.Configuration(
            listen: ("127.0.0.1", 0), recordDirectory: recordDirectory,
            onEvent: { event in
                switch event {
                case .recordingFinished(let path, _, _): recordings.withLock { $0.append(path) }
                case .recordingFailed(let path, let reason): failures.withLock { $0.append("\(path): \(reason)") }
                default: break
                }
            })
        // Fragmented MP4: a browser or any player opens it, and it plays to its last whole fragment if cut short.
        configuration.recordFormat = .mp4
        showData = try Self.temporaryDirectory()
        let hls = ServeHLS(console: console)
        let whepSink = Locked<ServeWHEPShows?>(nil)
        do {
            show = try DemoShow(dataDirectory: showData) { stream, tiles, main in
                hls.picturesChanged(stream: stream, tiles: tiles, main: main)
                whepSink.withLock { $0 }?.picturesChanged(stream: stream, tiles: tiles, main: main)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: showData)
            throw error
        }
        show.shows.configureIngest(&configuration)
        hls.configureIngest(&configuration, shows: show.shows.server, mediaTagKey: show.shows.mediaTagKey)
        // The show over WebRTC, as `stream serve` has it: a browser host's WHIP pictures, WHEP for viewers, and the
        // demo's own broadcast (RTMP) forwarded to them.
        let owners = ServeKeyOwners()
        let whipShows = ServeWHIPShows(shows: show.shows.server, hls: hls)
        let whepShows = ServeWHEPShows(shows: show.shows.server, whip: whipShows)
        whepSink.withLock { $0 = whepShows }
        owners.configureIngest(&configuration)
        let forwarding = Locked<WebRTCServer?>(nil)
        ServeWebRTC.forwardIngest(&configuration, to: forwarding, hls: hls, shows: whepShows)
        let port: Int
        do {
            ingest = try RTMPServer(configuration: configuration)
            let ports = try runBlocking { [ingest] in try await ingest.start() }
            guard let bound = ports.rtmp else { throw CLIError.failure("the built-in server bound no RTMP port") }
            port = bound
        } catch {
            try? FileManager.default.removeItem(atPath: showData)
            throw error as? CLIError ?? CLIError.failure("cannot start the built-in server: \(error)")
        }
        console.print("Built-in server listening on rtmp://127.0.0.1:\(port)/live, recording to " + recordDirectory)
        ingestURL = IngestURL(scheme: .rtmp, host: "127.0.0.1", port: port, app: "live")
        // Without WebRTC (no UDP port to be had) the pages play LL-HLS, as they do when WHEP cannot connect.
        let webRTCConfiguration = ServeWebRTC.configuration(listenHost: "127.0.0.1", listenPort: 0, candidateHost: nil,
                                                            hls: hls, owners: owners, shows: whipShows,
                                                            console: console)
        do {
            let server = try runBlocking { try await WebRTCServer.start(webRTCConfiguration) }
            console.print("WebRTC for the show (WHIP from the host's page, WHEP to viewers) on UDP 127.0.0.1:"
                + "\(server.port)")
            webRTC = server
        } catch {
            console.print("WebRTC is off (\(error)): the pages play LL-HLS")
            webRTC = nil
        }
        forwarding.withLock { [webRTC] in $0 = webRTC }
        let base = Locked<String?>(nil)
        let show = self.show
        let webRTC = self.webRTC
        do {
            try show.shows.start(ingest: ingest, ingestURL: ingestURL.description)
            http = try ServeHTTP.start(listener, console: console, addRoutes: { router in
                show.shows.server.addRoutes(to: &router)
                hls.addRoutes(to: &router)
                ServeWatch.addRoutes(to: &router, watchPages: true)
                if let webRTC {
                    whipShows.addRoutes(to: &router, server: webRTC)
                    whepShows.addRoutes(to: &router, server: webRTC)
                }
            }, started: { url in
                hls.setBaseURL(url)
                base.withLock { $0 = url }
            })
        } catch {
            ServeWebRTC.stop(webRTC)
            show.shows.server.stop()
            ingest.stop()
            try? FileManager.default.removeItem(atPath: showData)
            throw error
        }
        watchPage = "\(base.withLock { $0 } ?? "http://127.0.0.1")/watch/\(DemoShow.streamName)"
        showCard = "\(base.withLock { $0 } ?? "http://127.0.0.1")/v1/streams/\(DemoShow.streamName)"
        hostPage = watchPage + "#token=" + show.browserHostToken
    }

    /// Stops the HTTP listener, WebRTC, the show and the ingest (closing the recording), and removes the show's store.
    func stop() {
        ServeHTTP.stop(http)
        ServeWebRTC.stop(webRTC)
        show.shows.server.stop()
        ingest.stop()
        try? FileManager.default.removeItem(atPath: showData)
    }

    /// The recordings the ingest finished, oldest first.
    var finishedRecordings: [String] { recordings.withLock { $0 } }

    /// The recordings that failed, with why.
    var failedRecordings: [String] { failures.withLock { $0 } }

    /// A new private directory for the show's store.
    private static func temporaryDirectory() throws -> String {
        var template = Array((FileManager.default.temporaryDirectory.path + "/stream-demo-show-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CLIError.failure("cannot create a temporary directory for the demo show")
        }
        return String(cString: made)
    }
}
