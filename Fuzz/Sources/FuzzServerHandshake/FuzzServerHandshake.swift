import FuzzSupport
import RTMP

/// The server handshake (RTMP §5.2): arbitrary client bytes, in pieces, never trap; S0+S1+S2 come exactly once
/// and are 3073 bytes; the bytes after C2 are handed back unchanged.
///
/// Steering byte: [0] piece sizes. The rest is what the client sends.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerHandshake(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let packetSize = 1536
    var input = FuzzInput(data, size)
    let pieceSeed = Int(input.takeByte())
    let client = input.rest
    let random = (0..<ClientHandshake.randomSize).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    var handshake = ServerHandshake(time: 0, random: random)
    var replies = 0
    var fed = 0
    var remaining: [UInt8] = []
    for piece in pieces(of: client, sizes: [pieceSeed % 5 + 1, pieceSeed + 1]) {
        let step: HandshakeStep
        do {
            step = try handshake.receive(piece)
        } catch {
            fuzzCheck(client.first != ClientHandshake.version, "a version 3 client was refused: \(error)")
            return 0
        }
        fed += piece.count
        if !step.reply.isEmpty {
            replies += 1
            fuzzCheck(step.reply.count == 1 + 2 * packetSize, "S0+S1+S2 is \(step.reply.count) bytes")
            fuzzCheck(step.reply[0] == ClientHandshake.version, "S0 is not version 3")
            fuzzCheck(fed >= 1 + packetSize, "replied before C1 was complete")
        }
        fuzzCheck(step.isComplete == handshake.isComplete, "step and machine disagree on completion")
        remaining += step.remaining
    }
    fuzzCheck(replies <= 1, "S0+S1+S2 sent \(replies) times")
    let complete = client.count >= 1 + 2 * packetSize
    fuzzCheck(handshake.isComplete == complete, "completion after \(client.count) bytes: \(handshake.isComplete)")
    if complete {
        fuzzCheck(remaining == Array(client[(1 + 2 * packetSize)...]), "bytes after C2 were not handed back intact")
    }
    return 0
}
