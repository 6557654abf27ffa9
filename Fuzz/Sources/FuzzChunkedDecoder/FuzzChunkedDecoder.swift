import FuzzSupport
import HTTP

/// The chunked body decoder (RFC 9112 §7.1) fed arbitrary bytes: it never traps, hands out no more data than it
/// was given, keeps trailers within the limits, and decodes bytes in pieces exactly as bytes delivered whole.
///
/// Steering bytes: [0] bit 0 selects small limits, [1] piece sizes. The rest is the body.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChunkedDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let limits = input.takeByte() & 1 == 1
        ? HTTPLimits(maximumHeadSize: 256, maximumFieldCount: 4, maximumChunkLineLength: 16)
        : HTTPLimits()
    let pieceSeed = Int(input.takeByte())
    let body = input.rest
    let whole = decode([body], limits: limits)
    let split = decode(pieces(of: body, sizes: [pieceSeed % 7 + 1, pieceSeed / 7 + 1, 1]), limits: limits)
    fuzzCheck(whole == split, "the decoded body depends on how the bytes arrive")
    fuzzCheck(whole.data.count <= body.count, "more data out than bytes in")
    return 0
}

private struct Decoded: Equatable {
    var data: [UInt8] = []
    var trailers: HTTPHeaders?
    var failed = false
    var rest: [UInt8] = []
}

private func decode(_ pieces: [[UInt8]], limits: HTTPLimits) -> Decoded {
    var decoder = ChunkedDecoder(limits: limits)
    var decoded = Decoded()
    for piece in pieces {
        decoder.append(piece)
        do {
            while let part = try decoder.next() {
                switch part {
                case .data(let bytes):
                    fuzzCheck(!bytes.isEmpty, "an empty data part")
                    decoded.data += bytes
                case .end(let trailers):
                    fuzzCheck(trailers.count <= limits.maximumFieldCount, "trailers passed the field limit")
                    decoded.trailers = trailers
                }
            }
        } catch {
            decoded.failed = true
            return decoded
        }
    }
    if decoder.isComplete { decoded.rest = decoder.takeRemainingBytes() }
    return decoded
}
