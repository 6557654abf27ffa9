import Foundation
import HTTP
import HTTPServer
import TestSupport
import Testing
import Transport

/// curl (Debian's 7.88) against the server: keep-alive, chunked uploads, 100-continue, Range, If-None-Match,
/// streamed responses, HTTPS with --cacert.
@Suite(.serialized, .startsPeers)
struct HTTPServerCurlTests {
    private func curl(_ arguments: [String]) async throws -> Subprocess.Result {
        let result = try await offPool {
            try Subprocess.run("curl", ["-sS", "--max-time", "20"] + arguments, timeout: 30)
        }
        #expect(result.status == 0, "curl failed: \(result.stderr)")
        return result
    }

    private func curlStatus(_ arguments: [String]) async throws -> Subprocess.Result {
        try await offPool { try Subprocess.run("curl", ["-sS", "--max-time", "20"] + arguments, timeout: 30) }
    }

    /// Issue 33's /metrics reads these: what curl's request and the answer weigh, to the byte, on the HTTP side.
    @Test func statisticsCountConnectionsAndBytesByProtocol() async throws {
        let server = try await TestServer()
        #expect(await server.server.statistics() == HTTPServer.Statistics(httpConnections: 0, webSockets: 0))
        let result = try await curl(["-o", "/dev/null", "-w", "%{size_request} %{size_header} %{size_download}",
                                     server.url("/hello")])
        let sizes = result.stdout.split(separator: " ").compactMap { Int($0) }
        try #require(sizes.count == 3, "\(result.stdout)")
        try await eventually("curl's connection to close", within: .seconds(5)) {
            await server.server.statistics().httpConnections == 0
        }
        let statistics = await server.server.statistics()
        #expect(statistics.httpBytesReceived == sizes[0] && statistics.httpBytesSent == sizes[1] + sizes[2],
                "\(statistics) against curl's \(sizes)")
        #expect(statistics.webSocketBytesReceived == 0 && statistics.webSocketBytesSent == 0)
    }

    @Test func aServedFileThatChangesIsServedAsItIsNow() async throws {
        // The files route reuses descriptors while the path names the same file: every change must still show.
        let server = try await TestServer()
        let path = server.files.file("changing.txt")
        try "version one\n".write(toFile: path, atomically: false, encoding: .utf8)
        let first = try await curl([server.url("/files/changing.txt"), server.url("/files/changing.txt")])
        #expect(first.stdout == "version one\n" + "version one\n")
        // Rewritten in place, same size: a new modification time, the same inode.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: Data("version two\n".utf8))
        try handle.close()
        #expect(try await curl([server.url("/files/changing.txt")]).stdout == "version two\n")
        // Replaced by a rename: another inode.
        try "version three, longer\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try await curl([server.url("/files/changing.txt")]).stdout == "version three, longer\n")
        try FileManager.default.removeItem(atPath: path)
        let gone = try await curlStatus(["-o", "/dev/null", "-w", "%{http_code}", server.url("/files/changing.txt")])
        #expect(gone.stdout == "404")
        // More files than the cache keeps: each still served whole.
        for index in 0..<40 {
            try "file \(index)\n".write(toFile: server.files.file("f\(index).txt"), atomically: true, encoding: .utf8)
        }
        let many = try await curl((0..<40).map { server.url("/files/f\($0).txt") })
        #expect(many.stdout == (0..<40).map { "file \($0)\n" }.joined())
        await server.stop()
    }

    @Test func reusesAKeepAliveConnection() async throws {
        let server = try await TestServer()
        let result = try await curl(["-v", server.url("/hello"), server.url("/slow"), server.url("/files/small.txt")])
        await server.stop()
        #expect(result.stdout == "hello" + "slow" + TestServer.smallText)
        #expect(result.stderr.components(separatedBy: "Re-using existing connection").count - 1 == 2)
        #expect(result.stderr.contains("< Date: "))
    }

    @Test func acceptsAChunkedUploadWithExpectContinue() async throws {
        let server = try await TestServer()
        let directory = try TemporaryDirectory("upload")
        let payload = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        try payload.write(to: URL(fileURLWithPath: directory.file("up.bin")))
        let result = try await curl(["-v", "-H", "Transfer-Encoding: chunked", "-H", "Expect: 100-continue",
                               "--data-binary", "@" + directory.file("up.bin"), "-o", directory.file("down.bin"),
                               server.url("/echo")])
        await server.stop()
        #expect(result.stderr.contains("> Transfer-Encoding: chunked"))
        #expect(result.stderr.contains("< HTTP/1.1 100 Continue"))
        #expect(result.stderr.contains("< X-Body-Length: 3000000"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("down.bin"))) == payload)
    }

    @Test func refusesAnUploadOverTheRouteLimitBeforeItIsSent() async throws {
        let server = try await TestServer()
        let directory = try TemporaryDirectory("upload")
        try Data(count: 5_000_000).write(to: URL(fileURLWithPath: directory.file("big.bin")))
        let result = try await curlStatus(["-o", "/dev/null", "-w", "%{http_code}", "-H", "Expect: 100-continue",
                                           "--data-binary", "@" + directory.file("big.bin"), server.url("/echo")])
        await server.stop()
        #expect(result.stdout == "413")
    }

    @Test func servesRangesAndConditionalRequests() async throws {
        let server = try await TestServer()
        let whole = try Data(contentsOf: URL(fileURLWithPath: server.files.file("big.bin")))
        let headers = try await curl(["-D", "-", "-o", "/dev/null", server.url("/files/big.bin")]).stdout
        let etag = try #require(headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") })
            .dropFirst(5).trimmingCharacters(in: .whitespaces)
        #expect(headers.hasPrefix("HTTP/1.1 200 OK"))
        #expect(headers.contains("Content-Length: 1048576"))
        #expect(headers.contains("Accept-Ranges: bytes"))

        let directory = try TemporaryDirectory("range")
        let partial = try await curl(["-D", directory.file("h"), "-o", directory.file("b"), "-r", "1000-1999",
                                server.url("/files/big.bin")])
        #expect(partial.status == 0)
        let partialHeaders = try String(contentsOfFile: directory.file("h"), encoding: .utf8)
        #expect(partialHeaders.hasPrefix("HTTP/1.1 206 Partial Content"))
        #expect(partialHeaders.contains("Content-Range: bytes 1000-1999/1048576"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("b"))) == whole[1000..<2000])
        _ = try await curl(["-o", directory.file("suffix"), "-r", "-10", server.url("/files/big.bin")])
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("suffix"))) == whole.suffix(10))

        let notModified = try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "If-None-Match: \(etag)",
                                    server.url("/files/big.bin")])
        #expect(notModified.stdout == "304")
        let changed = try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "If-None-Match: \"other\"",
                                server.url("/files/big.bin")])
        #expect(changed.stdout == "200")
        let unsatisfiable = try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-r", "2000000-",
                                      server.url("/files/big.bin")])
        #expect(unsatisfiable.stdout == "416")
        let download = try await curl(["-o", directory.file("all"), "-w", "%{http_code}", server.url("/files/big.bin")])
        #expect(download.stdout == "200")
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("all"))) == whole)
        let index = try await curl([server.url("/files/")])
        #expect(index.stdout.contains("<title>index</title>"))
        let hidden = try await curl(["-o", "/dev/null", "-w", "%{http_code}", "--path-as-is",
                                     server.url("/files/../x")])
        #expect(hidden.stdout == "404")
        await server.stop()
    }

    @Test func streamsAChunkedResponse() async throws {
        let server = try await TestServer()
        let result = try await curl(["-v", server.url("/stream")])
        await server.stop()
        #expect(result.stdout == "one,two,three")
        #expect(result.stderr.contains("< Transfer-Encoding: chunked"))
    }

    @Test func answersUnknownPathsAndMethods() async throws {
        let server = try await TestServer()
        let missing = try await curl(["-o", "/dev/null", "-w", "%{http_code}", server.url("/nothing")])
        let wrongMethod = try await curl(["-D", "-", "-o", "/dev/null", "-X", "DELETE", server.url("/hello")])
        await server.stop()
        #expect(missing.stdout == "404")
        #expect(wrongMethod.stdout.hasPrefix("HTTP/1.1 405"))
        #expect(wrongMethod.stdout.contains("Allow: GET"))
    }

    @Test func servesHTTPSVerifiedWithTheCAFile() async throws {
        let directory = try TemporaryDirectory("https")
        let certificate = try TestCertificate.make(in: directory)
        let tls = TLSServerConfiguration(certificateFile: certificate.certificateFile,
                                         privateKeyFile: certificate.keyFile)
        let server = try await TestServer(configuration: .init(listen: nil, tlsListen: ("127.0.0.1", 0, tls)))
        let url = "https://127.0.0.1:\(server.port)"
        let verified = try await curl(["-v", "--cacert", certificate.certificateFile, url + "/hello", url + "/hello"])
        let unverified = try await curlStatus([url + "/hello"])
        await server.stop()
        #expect(verified.stdout == "hellohello")
        #expect(verified.stderr.contains("SSL certificate verify ok"))
        #expect(verified.stderr.contains("Re-using existing connection"))
        #expect(unverified.status != 0)
    }
}
