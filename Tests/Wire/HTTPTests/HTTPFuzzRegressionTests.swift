import HTTP
import TestSupport
import Testing

/// Inputs found by fuzzing (Fuzz/Sources/FuzzHTTPRequestHead, FuzzChunkedDecoder), kept as tests.
struct HTTPFuzzRegressionTests {
    /// A request line that never ends, longer than the target limit allows, with a bare CR further on. Delivered
    /// whole it was refused for the bare CR (400); in pieces, for its length (414) as soon as the budget was passed.
    /// Limits are now checked at the byte that passes them, so both ways give 414.
    static let overlongLineWithBareCR: [UInt8] = Array("GET /v1/h".utf8) + [0x01, 0, 0, 0] + Array("h?".utf8)
        + [UInt8](repeating: 0xFF, count: 5)     // obs-text in the target
        + [UInt8](repeating: 0x72, count: 119)   // "rrr…"
        + [UInt8](repeating: 0xFF, count: 81)
        + Array("iki".utf8) + [0x0D, 0x0D]       // a bare CR, past the 192-byte budget
        + Array("0\r\n\n\n".utf8)

    @Test(arguments: FeedMode.allCases)
    func refusalDoesNotDependOnHowBytesArrive(mode: FeedMode) {
        let limits = HTTPLimits(maximumHeadSize: 512, maximumURILength: 128, maximumFieldCount: 8,
                                maximumChunkLineLength: 32, maximumBodySize: 64)
        var decoder = HTTPRequestDecoder(limits: limits)
        var refusal: HTTPError?
        for piece in mode.pieces([Self.overlongLineWithBareCR]) where refusal == nil {
            decoder.append(piece)
            do {
                while try decoder.next() != nil {}
            } catch {
                refusal = error
            }
        }
        #expect(refusal?.code == .uriTooLong)
    }
}
