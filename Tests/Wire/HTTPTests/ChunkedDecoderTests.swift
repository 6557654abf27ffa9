import HTTP
import TestSupport
import Testing

private func decodeChunked(
    _ vectors: [[UInt8]], _ mode: FeedMode, limits: HTTPLimits = HTTPLimits()
) -> (data: [UInt8], trailers: HTTPHeaders?, error: HTTPError?, rest: [UInt8]) {
    var decoder = ChunkedDecoder(limits: limits)
    var data: [UInt8] = []
    var trailers: HTTPHeaders?
    for piece in mode.pieces(vectors) {
        decoder.append(piece)
        do {
            while let part = try decoder.next() {
                switch part {
                case .data(let bytes):
                    #expect(!bytes.isEmpty)
                    data += bytes
                case .end(let fields):
                    trailers = fields
                }
            }
        } catch {
            return (data, trailers, error, [])
        }
    }
    return (data, trailers, nil, decoder.takeRemainingBytes())
}

struct ChunkedDecoderTests {
    @Test(arguments: FeedMode.allCases)
    func decodesChunksExtensionsAndTrailers(mode: FeedMode) {
        let vectors = [
            bytes("1a; ext=\"quoted\"\r\n"),            // 26 bytes, with a quoted extension
            bytes("abcdefghijklmnopqrstuvwxyz\r\n"),
            bytes("10 ;x\r\n"),                         // 16 bytes, whitespace before the extension
            bytes("1234567890abcdef\r\n"),
            bytes("0\r\n"),                             // last chunk
            bytes("Digest: x\r\nServer-Timing: y\r\n"), // trailers
            bytes("\r\n"),
            bytes("GET"),                               // the next message's first bytes
        ]
        let result = decodeChunked(vectors, mode)
        #expect(result.error == nil)
        #expect(result.data == bytes("abcdefghijklmnopqrstuvwxyz1234567890abcdef"))
        #expect(result.trailers == ["Digest": "x", "Server-Timing": "y"])
        #expect(result.rest == bytes("GET"))
    }

    @Test func refusesAnOverlongSizeLine() {
        let line = "5;" + String(repeating: "x", count: 5000) + "\r\n"
        #expect(decodeChunked([bytes(line)], .whole).error?.code == .malformed)
        #expect(decodeChunked([bytes(String(line.dropLast(2)))], .whole).error?.code == .malformed)
    }

    @Test func refusesOversizedTrailers() {
        let trailer = "X: " + String(repeating: "y", count: 17 * 1024) + "\r\n"
        #expect(decodeChunked([bytes("0\r\n" + trailer + "\r\n")], .whole).error?.code == .headTooLarge)
    }

    @Test func holdsNoMoreThanOneReadOfAHugeChunk() throws {
        // The largest size that fits in 63 bits is accepted; its data comes out as it arrives.
        var decoder = ChunkedDecoder()
        decoder.append(bytes("7fffffffffffffff\r\nabc"))
        #expect(try decoder.next() == .data(bytes("abc")))
        #expect(try decoder.next() == nil)
        decoder.append(bytes("def"))
        #expect(try decoder.next() == .data(bytes("def")))
        #expect(!decoder.isComplete)
    }

    @Test func encoderOutputDecodes() throws {
        var decoder = ChunkedDecoder()
        decoder.append(ChunkedEncoder.chunk(bytes("hello")) + ChunkedEncoder.chunk([UInt8](repeating: 7, count: 300))
                       + ChunkedEncoder.chunk([]) + ChunkedEncoder.end)
        #expect(try decoder.next() == .data(bytes("hello")))
        #expect(try decoder.next() == .data([UInt8](repeating: 7, count: 300)))
        #expect(try decoder.next() == .end(trailers: [:]))
        #expect(ChunkedEncoder.chunk([UInt8](repeating: 7, count: 300)).prefix(5) == bytes("12c\r\n")[...])
    }
}
