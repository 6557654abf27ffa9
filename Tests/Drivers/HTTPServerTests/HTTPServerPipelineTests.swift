import Foundation
import TestSupport
import Testing

/// Pipelined requests from Python (three requests in one write, read back with the standard library's HTTP
/// response parser).
@Suite(.startsPeers) struct HTTPServerPipelineTests {
    static let script = """
        import http.client, io, socket, sys
        port = int(sys.argv[1])
        requests = (b"GET /hello HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n"
                    b"POST /echo HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: 5\\r\\n\\r\\nfirst"
                    b"GET /slow HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n"
                    b"POST /echo HTTP/1.1\\r\\nHost: a\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n"
                    b"3\\r\\nend\\r\\n0\\r\\n\\r\\n"
                    b"GET /hello HTTP/1.1\\r\\nHost: a\\r\\nConnection: close\\r\\n\\r\\n")
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(requests)
            received = b""
            while chunk := sock.recv(65536):
                received += chunk  # until the server closes, after the Connection: close request

        class Stream(io.BytesIO):
            def close(self):  # http.client closes the stream after each body; keep reading the next response
                pass

        class Replay:
            def __init__(self, stream):
                self.stream = stream
            def makefile(self, mode):
                return self.stream

        replay = Replay(Stream(received))
        for _ in range(5):
            response = http.client.HTTPResponse(replay)
            response.begin()
            print(response.status, response.read().decode())
        assert replay.stream.read() == b"", "bytes after the last response"
        """

    @Test func answersPipelinedRequestsInOrder() async throws {
        let server = try await TestServer()
        let output = try await runPython(Self.script, ["\(server.port)"])
        await server.stop()
        #expect(output == "200 hello\n200 first\n200 slow\n200 end\n200 hello\n")
    }
}
