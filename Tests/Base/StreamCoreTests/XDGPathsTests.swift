import Foundation
import Testing
@testable import StreamCore

@Suite struct XDGPathsTests {
    @Test func usesAnAbsoluteXDGConfigHome() throws {
        let paths = try XDGPaths(environment: ["XDG_CONFIG_HOME": "/tmp/xdg", "HOME": "/home/u"])
        #expect(paths.configDirectory.path == "/tmp/xdg/stream")
        #expect(paths.file("credentials.json").path == "/tmp/xdg/stream/credentials.json")
    }

    @Test(arguments: [["HOME": "/home/u"], ["XDG_CONFIG_HOME": "", "HOME": "/home/u"],
                      ["XDG_CONFIG_HOME": "relative/dir", "HOME": "/home/u"]])
    func fallsBackToHomeDotConfig(_ environment: [String: String]) throws {
        #expect(try XDGPaths(environment: environment).configDirectory.path == "/home/u/.config/stream")
    }

    @Test func failsWithoutAnyAbsolutePath() {
        #expect(throws: StreamCoreError.self) { try XDGPaths(environment: ["HOME": "relative"]) }
        #expect(throws: StreamCoreError.self) { try XDGPaths(environment: [:]) }
    }

    @Test func theDataDirectoryFollowsXDGDataHomeThenHome() throws {
        #expect(try XDGPaths.dataDirectory(environment: ["XDG_DATA_HOME": "/tmp/data", "HOME": "/home/u"]).path
                    == "/tmp/data/stream")
        #expect(try XDGPaths.dataDirectory(environment: ["XDG_DATA_HOME": "rel", "HOME": "/home/u"]).path
                    == "/home/u/.local/share/stream")
        #expect(throws: StreamCoreError.self) { try XDGPaths.dataDirectory(environment: [:]) }
    }
}
