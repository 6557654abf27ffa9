import FuzzSupport
import WebSocket

/// The WebSocket frame decoder (RFC 6455 §5.2) and the server connection machine above it fed arbitrary bytes: they
/// never trap, respect the payload and message limits, and bytes in pieces give the same frames, messages and close
/// code as bytes delivered whole.
///
/// Steering bytes: [0] bit 0: the server side (masked frames expected) or the client side; [1] piece sizes. The
/// rest is what the peer sends. The message limit is 300 bytes, so 1009 is reachable.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketFrameDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let isServer = input.takeByte() & 1 == 1
    let pieceSeed = Int(input.takeByte())
    let stream = input.rest
    let split = pieces(of: stream, sizes: [pieceSeed % 5 + 1, pieceSeed / 5 + 1, 1])

    let wholeFrames = frames([stream], isServer: isServer)
    fuzzCheck(wholeFrames == frames(split, isServer: isServer), "frames differ when the bytes arrive in pieces")
    let wholeRun = run([stream], isServer: isServer)
    fuzzCheck(wholeRun == run(split, isServer: isServer),
              "messages or the close differ when the bytes arrive in pieces")
    return 0
}

private let limit = 300

private struct Frames: Equatable {
    var frames: [String] = []
    var error: UInt16?
}

private func frames(_ pieces: [[UInt8]], isServer: Bool) -> Frames {
    var decoder = WebSocketFrameDecoder(expecting: isServer ? .masked : .unmasked, maximumPayloadLength: limit)
    var result = Frames()
    var payload: [UInt8] = []
    var header: WebSocketFrameHeader?
    for piece in pieces {
        decoder.append(piece)
        do {
            while let part = try decoder.next() {
                switch part {
                case .header(let next):
                    fuzzCheck(next.payloadLength <= limit, "a frame header passed the payload limit")
                    fuzzCheck(!next.opcode.isControl || (next.fin && next.payloadLength <= 125), "a bad control frame")
                    header = next
                    payload = []
                case .payload(let bytes):
                    payload += bytes
                case .end:
                    guard let header else { fuzzFail("a frame ended before its header") }
                    fuzzCheck(payload.count == header.payloadLength, "the payload length differs from the header")
                    result.frames.append("\(header.opcode) \(header.fin) \(payload)")
                }
            }
        } catch {
            result.error = error.closeCode.rawValue
            return result
        }
    }
    return result
}

private struct Run: Equatable {
    var messages: [WebSocketMessage] = []
    var written: [UInt8] = []
    var closed: WebSocketClose?
}

private func run(_ pieces: [[UInt8]], isServer: Bool) -> Run {
    var machine = WebSocketMachine(role: isServer ? .server : .client, maximumMessageSize: limit,
                                   random: FixedGenerator())
    var result = Run()
    for piece in pieces {
        machine.append(piece)
        while case let actions = machine.next(), !actions.isEmpty {
            for action in actions {
                switch action {
                case .write(let bytes): result.written += bytes
                case .message(let message):
                    fuzzCheck(message.payload.count <= limit, "a message passed the limit")
                    result.messages.append(message)
                case .pong, .closeConnection: break
                case .closed(let close):
                    fuzzCheck(result.closed == nil, "closed twice")
                    result.closed = close
                }
            }
        }
    }
    return result
}

/// Masking keys that do not change between the two runs, so that their writes compare equal.
private struct FixedGenerator: RandomNumberGenerator, Sendable {
    mutating func next() -> UInt64 { 0x1234_5678_9ABC_DEF0 }
}
