import FuzzSupport
import RTMP

/// A whole server session (handshake, `connect`, publish, play, media) fed arbitrary bytes after a valid
/// handshake, in pieces, with every publish allowed: it never traps, and after `.failed` or `.close` it stays
/// silent.
///
/// Steering byte: [0] piece sizes. The rest is what the client sends after C0+C1+C2.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerSession(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let pieceSeed = Int(input.takeByte())
    let random = (0..<ClientHandshake.randomSize).map { UInt8(truncatingIfNeeded: $0 &* 13) }
    var session = ServerSession(random: random)
    // C0, then a plain C1 (version field zero: the spec's handshake) and a C2 that echoes nothing in particular.
    let handshake = [ClientHandshake.version] + [UInt8](repeating: 0, count: 1536) + [UInt8](repeating: 1, count: 1536)
    var ended = false
    for piece in [handshake] + pieces(of: input.rest, sizes: [pieceSeed % 9 + 1, pieceSeed * 4 + 1]) {
        let actions = session.bytesReceived(piece)
        fuzzCheck(!ended || actions.isEmpty, "the session acted after it ended: \(actions.count) actions")
        ended = ended || run(actions, on: &session)
    }
    let closing = session.connectionClosed()
    fuzzCheck(!ended || closing.allSatisfy(isStop), "unexpected actions on close after the session ended")
    return 0
}

/// Answers authorization requests with "allowed"; returns whether the session ended.
private func run(_ actions: [ServerSession.Action], on session: inout ServerSession) -> Bool {
    var pending = actions[...]
    var ended = false
    while let action = pending.popFirst() {
        switch action {
        case .authorizePublish:
            pending.append(contentsOf: session.authorization(allowed: true))
        case .close, .failed:
            ended = true
        case .write, .connected, .publishStarted, .publishStopped, .play, .playStopped, .media, .metadata:
            break
        }
    }
    return ended
}

private func isStop(_ action: ServerSession.Action) -> Bool {
    switch action {
    case .publishStopped, .playStopped: true
    default: false
    }
}
