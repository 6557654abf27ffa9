import FuzzSupport
import HTTP

/// A server connection's HTTP/1.1 machine (request heads, bodies, pipelining, limits) fed arbitrary bytes: it never
/// traps, requests respect the limits, and bytes in pieces give the same requests and the same refusal as bytes
/// delivered whole.
///
/// Steering bytes: [0] bit 0 selects small limits (so every limit is reachable with short inputs), [1] piece
/// sizes. The rest is what a client sends; each request is answered with a 2-byte body so pipelining goes on.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPRequestHead(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let small = input.takeByte() & 1 == 1
    let limits = small
        ? HTTPLimits(maximumHeadSize: 512, maximumURILength: 128, maximumFieldCount: 8, maximumChunkLineLength: 32,
                     maximumBodySize: 64)
        : HTTPLimits()
    let pieceSeed = Int(input.takeByte())
    let stream = input.rest
    let whole = serve([stream], limits: limits)
    let split = serve(pieces(of: stream, sizes: [pieceSeed % 5 + 1, pieceSeed / 5 + 1, 1]), limits: limits)
    fuzzCheck(whole.requests == split.requests, "requests differ when the bytes arrive in pieces")
    fuzzCheck(whole.rejection == split.rejection, "a refusal depends on how the bytes arrive")
    fuzzCheck(whole.written == split.written, "the bytes written depend on how the input arrives")
    return 0
}

private struct Served: Equatable {
    var requests: [String] = []
    var rejection: Int?
    var written: [UInt8] = []
}

private func serve(_ pieces: [[UInt8]], limits: HTTPLimits) -> Served {
    var machine = HTTPServerMachine(limits: limits)
    var served = Served()
    let bodyLimit: (HTTPRequestHead) -> Int = { _ in limits.maximumBodySize }
    for piece in pieces {
        var pending = machine.received(piece, bodyLimit: bodyLimit)
        while !pending.isEmpty {
            switch pending.removeFirst() {
            case .write(let bytes):
                served.written += bytes
            case .request(let head, let body):
                fuzzCheck(body.count <= limits.maximumBodySize, "a \(body.count)-byte body passed the limit")
                fuzzCheck(head.target.utf8.count <= limits.maximumURILength, "a target passed the URI limit")
                fuzzCheck(head.headers.count <= limits.maximumFieldCount, "a head passed the field limit")
                served.requests.append("\(head.method) \(head.target) \(head.version) \(head.headers.count) \(body)")
                served.written += machine.startResponse(HTTPResponseHead(status: .ok), bodyLength: 2)
                served.written += machine.responseBody([0x6F, 0x6B])
                pending += machine.endResponse(bodyLimit: bodyLimit)
            case .reject(let error):
                fuzzCheck(served.rejection == nil, "rejected twice")
                served.rejection = error.status.code
                served.written += machine.startResponse(HTTPResponseHead(status: error.status), bodyLength: 0)
                pending += machine.endResponse(bodyLimit: bodyLimit)
            case .close:
                return served
            }
        }
    }
    return served
}
