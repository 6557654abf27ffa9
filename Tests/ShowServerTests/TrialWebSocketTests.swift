import Foundation
import HTTPServer
import IngestServer
import LiveShows
import ShowServer
import SQLiteShowStore
import TestSupport
import Testing

@Suite(.serialized) struct TrialWebSocketTests {
    @Test func scenario() async throws {
        let directory = try TemporaryDirectory("trial")
        let secretFile = directory.file("secret")
        try "a test secret of at least 32 bytes!!".write(toFile: secretFile, atomically: true, encoding: .utf8)
        let catalog = try ShowsFile.catalog(from: Array("""
            {"streams": [
             {"pattern": "show:{id}", "hosts": ["ann"], "mods": ["{id}", "max"], "visitors": "viewer", "reactions": true},
             {"pattern": "quiet:{id}", "hosts": ["ann"], "visitors": "read_only", "reactions": true},
             {"pattern": "private:{id}", "hosts": ["ann"]},
             {"pattern": "show:load", "hosts": ["ann"], "visitors": "viewer"}
            ]}
            """.utf8))
        let path = directory.path
        let shows = try ShowServer(configuration: .init(
            catalog: catalog, secret: ShowServerTests.secret,
            makeStore: { () throws(StoreError) -> any ShowStore in try SQLiteShowStore(directory: path) }))
        var rtmpConfiguration = RTMPServer.Configuration(listen: ("127.0.0.1", 0))
        rtmpConfiguration.publishGate = shows.publishGate()
        let ingest = try RTMPServer(configuration: rtmpConfiguration)
        let rtmpPort = try #require(try await ingest.start().rtmp)
        shows.setPublisherDisconnector { ingest.disconnectPublishers(admittedAs: $0) }
        try await shows.start(ingestURL: "rtmp://127.0.0.1:\(rtmpPort)/live")
        var router = HTTPRouter()
        shows.addRoutes(to: &router)
        let http = try HTTPServer(configuration: .init(listen: ("127.0.0.1", 0)), router: router)
        let port = try #require(try await http.start().http)
        let script = ProcessInfo.processInfo.environment["TRIAL_SCRIPT"] ?? "scenario.py"
        let extra = (ProcessInfo.processInfo.environment["TRIAL_ARGS"] ?? "").split(separator: " ").map(String.init)
        let result = try Subprocess.run("python3", ["/tmp/pyproto/\(script)", "ws://127.0.0.1:\(port)", secretFile]
                                        + extra, timeout: 120)
        print("STDOUT", result.stdout)
        print("STDERR", result.stderr)
        #expect(result.status == 0)
        await http.stop()
        shows.stop()
        ingest.stop()
    }
}
