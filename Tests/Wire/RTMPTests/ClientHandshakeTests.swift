import Testing
@testable import RTMP

struct ClientHandshakeTests {
    let random = pseudoRandomBytes(1528, seed: 1)

    @Test func c0AndC1Layout() {
        var handshake = ClientHandshake(time: 0x0102_0304, random: random)
        let bytes = handshake.start()
        #expect(bytes.count == 1 + 1536)
        #expect(bytes[0] == 0x03)                          // C0: version 3
        #expect(Array(bytes[1...4]) == [1, 2, 3, 4])       // C1 time
        #expect(Array(bytes[5...8]) == [0, 0, 0, 0])       // C1 zero
        #expect(Array(bytes[9...]) == random)              // C1 random
    }

    @Test(arguments: Feeding.allCases)
    func readsS0S1S2AndEchoesS1(feeding: Feeding) throws {
        var handshake = ClientHandshake(time: 0, random: random)
        let c1 = Array(handshake.start()[1...])
        let s1 = [0, 0, 0, 9] + [0, 0, 0, 0] + pseudoRandomBytes(1528, seed: 2)
        let s2 = c1
        let chunkBytes: [UInt8] = [0x02, 0x00]                 // what follows: the start of a chunk
        var replies: [UInt8] = []
        var remaining: [UInt8] = []
        var complete = false
        for piece in feeding.pieces([0x03] + s1 + s2, next: chunkBytes) {
            let step = try handshake.receive(piece)
            replies += step.reply
            if step.isComplete {
                complete = true
                remaining += step.remaining
            }
        }
        #expect(complete)
        #expect(handshake.isComplete)
        #expect(replies == s1)                                 // C2 echoes S1
        #expect(remaining == chunkBytes)
    }

    @Test func toleratesAnS2ThatDoesNotEchoC1() throws {
        var handshake = ClientHandshake(time: 0, random: random)
        _ = handshake.start()
        let s1 = [UInt8](repeating: 7, count: 1536)
        let s2 = [UInt8](repeating: 9, count: 1536)            // does not echo C1
        let step = try handshake.receive([0x03] + s1 + s2)
        #expect(step.isComplete)
    }

    @Test(arguments: [UInt8(0x06), UInt8(ascii: "H"), 0x16])
    func rejectsOtherVersions(version: UInt8) {
        var handshake = ClientHandshake(time: 0, random: random)
        _ = handshake.start()
        #expect { try handshake.receive([version]) } throws: { ($0 as? RTMPError)?.code == .unsupportedVersion }
    }
}
