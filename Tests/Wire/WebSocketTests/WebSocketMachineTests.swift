import TestSupport
import Testing
import WebSocket

/// A server and a client machine wired back to back, without I/O: what one writes, the other receives.
private struct Pair {
    var server = WebSocketMachine(role: .server, maximumMessageSize: 1 << 20, random: SeededGenerator(state: 1))
    var client = WebSocketMachine(role: .client, maximumMessageSize: 1 << 20, random: SeededGenerator(state: 2))
    var serverEvents: [WebSocketMachine.Action] = []
    var clientEvents: [WebSocketMachine.Action] = []

    /// Runs actions of one side: writes go to the other side, the rest is recorded.
    mutating func deliver(_ actions: [WebSocketMachine.Action], fromServer: Bool) {
        for action in actions {
            if case .write(let bytes) = action {
                if fromServer {
                    deliver(client.received(bytes), fromServer: false)
                } else {
                    deliver(server.received(bytes), fromServer: true)
                }
            } else if fromServer {
                serverEvents.append(action)
            } else {
                clientEvents.append(action)
            }
        }
    }
}

/// What a server does with raw client bytes (masked frames built here).
private func serverReceiving(_ frames: [WebSocketFrame], maximumMessageSize: Int = 1 << 20,
                             mode: FeedMode = .whole) -> [WebSocketMachine.Action] {
    var server = WebSocketMachine(role: .server, maximumMessageSize: maximumMessageSize)
    let bytes = frames.map { $0.encoded(maskingKey: 0xA1B2_C3D4) }
    return mode.pieces(bytes).flatMap { server.received($0) }
}

private func closeFrame(_ code: UInt16, _ reason: [UInt8] = []) -> WebSocketFrame {
    WebSocketFrame(opcode: .close, payload: [UInt8(code >> 8), UInt8(code & 0xFF)] + reason)
}

/// The close code a failing machine wrote, read back from its close frame.
private func sentCloseCode(_ actions: [WebSocketMachine.Action]) -> UInt16? {
    for case .write(let bytes) in actions where bytes.first == 0x88 && bytes.count >= 4 {
        return UInt16(bytes[2]) << 8 | UInt16(bytes[3])
    }
    return nil
}

struct WebSocketMachineTests {
    @Test func messagesFlowBothWays() throws {
        var pair = Pair()
        let text = pair.client.send(.text("hello ünïcode"))
        pair.deliver([.write(try #require(text))], fromServer: false)
        let binary = pair.server.send(.binary([0, 1, 2]))
        pair.deliver([.write(try #require(binary))], fromServer: true)
        let big = [UInt8](repeating: 7, count: 1 << 20)
        let large = pair.client.send(.binary(big))
        pair.deliver([.write(try #require(large))], fromServer: false)
        #expect(pair.serverEvents == [.message(.text("hello ünïcode")), .message(.binary(big))])
        #expect(pair.clientEvents == [.message(.binary([0, 1, 2]))])
    }

    @Test(arguments: FeedMode.allCases)
    func reassemblesFragmentsWithControlFramesBetween(mode: FeedMode) {
        let actions = serverReceiving([
            WebSocketFrame(fin: false, opcode: .text, payload: Array("frag".utf8)),
            WebSocketFrame(opcode: .ping, payload: [9]),
            WebSocketFrame(fin: false, opcode: .continuation, payload: Array("ment".utf8)),
            WebSocketFrame(opcode: .pong, payload: [8]),
            WebSocketFrame(opcode: .continuation, payload: Array("ed".utf8)),
        ], mode: mode)
        #expect(actions == [.write([0x8A, 0x01, 9]), .pong([8]), .message(.text("fragmented"))])
    }

    @Test func closingHandshakeStartedByTheClient() {
        var pair = Pair()
        pair.deliver(pair.client.close(code: .goingAway, reason: "bye"), fromServer: false)
        // The server answers with the same code and closes TCP; the client waits for that close.
        #expect(pair.serverEvents == [.closeConnection(waitForPeer: false),
                                      .closed(WebSocketClose(code: .goingAway, reason: "bye", initiatedByPeer: true))])
        #expect(pair.clientEvents == [.closeConnection(waitForPeer: true),
                                      .closed(WebSocketClose(code: .goingAway, reason: "bye", initiatedByPeer: false))])
        #expect(!pair.client.isOpen && !pair.server.isOpen)
        #expect(pair.client.send(.text("late")) == nil)
    }

    @Test func closingHandshakeStartedByTheServer() {
        var pair = Pair()
        pair.deliver(pair.server.close(code: .policyViolation, reason: "slow reader"), fromServer: true)
        #expect(pair.clientEvents.last == .closed(WebSocketClose(code: .policyViolation, reason: "slow reader",
                                                                 initiatedByPeer: true)))
        #expect(pair.serverEvents == [.closeConnection(waitForPeer: false),
                                      .closed(WebSocketClose(code: .policyViolation, reason: "slow reader",
                                                             initiatedByPeer: false))])
    }

    @Test func anEmptyCloseIsAnsweredEmpty() {
        let actions = serverReceiving([WebSocketFrame(opcode: .close, payload: [])])
        #expect(actions.first == .write([0x88, 0x00]))
        #expect(actions.last == .closed(WebSocketClose(code: .noStatusReceived, initiatedByPeer: true)))
    }

    @Test(arguments: [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999] as [UInt16])
    func echoesEveryValidCloseCode(code: UInt16) {
        let actions = serverReceiving([closeFrame(code)])
        #expect(sentCloseCode(actions) == code)
    }

    /// §7.4: codes never sent on the wire fail the connection with 1002.
    @Test(arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] as [UInt16])
    func refusesInvalidCloseCodes(code: UInt16) {
        #expect(sentCloseCode(serverReceiving([closeFrame(code)])) == 1002)
    }

    @Test func failures() {
        // A close frame of one byte, a reason that is not UTF-8.
        #expect(sentCloseCode(serverReceiving([WebSocketFrame(opcode: .close, payload: [0x03])])) == 1002)
        #expect(sentCloseCode(serverReceiving([closeFrame(1000, [0xFF])])) == 1007)
        // A continuation with nothing to continue; a new message inside a fragmented one.
        #expect(sentCloseCode(serverReceiving([WebSocketFrame(opcode: .continuation, payload: [1])])) == 1002)
        #expect(sentCloseCode(serverReceiving([WebSocketFrame(fin: false, opcode: .text, payload: [0x41]),
                                               WebSocketFrame(opcode: .text, payload: [0x42])])) == 1002)
        // Text that is not UTF-8, whole or split.
        #expect(sentCloseCode(serverReceiving([WebSocketFrame(opcode: .text, payload: [0xC0, 0x80])])) == 1007)
        #expect(sentCloseCode(serverReceiving([WebSocketFrame(fin: false, opcode: .text, payload: [0xE2, 0x82]),
                                               WebSocketFrame(opcode: .continuation, payload: [])])) == 1007)
        // Too big, in one frame or across fragments.
        let half = [UInt8](repeating: 1, count: 60)
        #expect(sentCloseCode(serverReceiving([WebSocketFrame(opcode: .binary, payload: half + half)],
                                              maximumMessageSize: 100)) == 1009)
        #expect(sentCloseCode(serverReceiving([WebSocketFrame(fin: false, opcode: .binary, payload: half),
                                               WebSocketFrame(opcode: .continuation, payload: half)],
                                              maximumMessageSize: 100)) == 1009)
    }

    /// §8.1: invalid UTF-8 fails the connection as soon as it arrives, before the frame ends.
    @Test func failsFastOnInvalidUTF8() {
        var server = WebSocketMachine(role: .server, maximumMessageSize: 1 << 20)
        let frame = WebSocketFrame(opcode: .text, payload: [0x41, 0xF4, 0x90, 0x80, 0x80] + Array("more".utf8))
        let bytes = frame.encoded(maskingKey: 1)
        #expect(server.received(Array(bytes.prefix(8))).isEmpty)  // 6-byte header, "A", F4: still possible
        let actions = server.received([bytes[8]])                 // 0x90 after F4: invalid now
        #expect(sentCloseCode(actions) == 1007)
        #expect(actions.contains(.closeConnection(waitForPeer: true)))
    }

    @Test func aClientFailingWaitsForTheServerToClose() {
        var client = WebSocketMachine(role: .client, maximumMessageSize: 100)
        let actions = client.received(WebSocketFrame(opcode: .text, payload: [0xFF]).encoded())
        #expect(actions.contains(.closeConnection(waitForPeer: true)))
        #expect(client.received([0x81, 0x00]).isEmpty)
    }

    @Test func connectionLossIsAbnormal() {
        var server = WebSocketMachine(role: .server, maximumMessageSize: 100)
        #expect(server.connectionClosed() == [.closed(WebSocketClose(code: .abnormalClosure, initiatedByPeer: true))])
        #expect(server.connectionClosed().isEmpty)
        var closing = WebSocketMachine(role: .server, maximumMessageSize: 100)
        _ = closing.close(code: .normalClosure)
        #expect(closing.closeTimedOut() == [.closeConnection(waitForPeer: false),
                                            .closed(WebSocketClose(code: .normalClosure, initiatedByPeer: false))])
    }

    @Test func clientFramesAreMaskedWithFreshKeys() throws {
        var client = WebSocketMachine(role: .client, maximumMessageSize: 100, random: SeededGenerator(state: 5))
        let first = try #require(client.send(.text("a")) as [UInt8]?)
        let second = try #require(client.send(.text("a")) as [UInt8]?)
        #expect(first[1] & 0x80 != 0)
        #expect(first[2..<6] != second[2..<6])
        let ping = client.ping([1, 2])
        #expect(ping?.first == 0x89)
    }
}
