import TestSupport
import Testing
@testable import Transport

/// ``Connection/awaitsRestOfMessage``: after a read that leaves half a message, the connection reads again at once;
/// when the rest has not come, that read finds nothing and the rest must still arrive through the loop as usual.
@Suite struct AwaitedRestTests {
    /// Frames of a 2-byte big-endian length and that many bytes: echoes each whole frame, and says while it holds
    /// part of one. Counts the bytes it has read in `read`.
    private final class FrameEcho: ConnectionHandler {
        private var held: [UInt8] = []
        private let read: Watched<Int>

        init(read: Watched<Int>) { self.read = read }

        func connectionDidRead(_ connection: Connection, bytes: [UInt8]) {
            read.update { $0 += bytes.count }
            held += bytes
            while held.count >= 2 {
                let length = Int(held[0]) << 8 | Int(held[1])
                guard held.count >= 2 + length else { break }
                #expect(throws: Never.self) { try connection.write(Array(held[0..<(2 + length)])) }
                held.removeFirst(2 + length)
            }
            connection.awaitsRestOfMessage = !held.isEmpty
        }

        func connectionDidClose(_ connection: Connection, error: TransportError?) {}
    }

    private static func frame(_ length: Int, _ value: UInt8) -> [UInt8] {
        [UInt8(length >> 8), UInt8(length & 0xFF)] + [UInt8](repeating: value, count: length)
    }

    /// Reads everything the server echoes until `count` bytes came.
    private static func read(_ count: Int, from client: AsyncConnection) async throws -> [UInt8] {
        var received: [UInt8] = []
        while received.count < count, let bytes = try await client.read() { received += bytes }
        return received
    }

    @Test func aMessageWhoseRestComesLaterArrivesWhole() async throws {
        try await withLoop { loop in
            let read = Watched(0)
            let (port, _) = try await startListener(on: loop) { $0.handler = FrameEcho(read: read) }
            let client = try await AsyncConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(5),
                                                           loop: loop)
            var sent = 0
            for (index, length) in [1000, 5, 30_000].enumerated() {
                let frame = Self.frame(length, UInt8(index + 1))
                // The header, then the rest in two pieces, each written once the server has read the one before.
                // The client writes on the same loop, after the server's read returned: the server's extra read
                // has then found nothing, and the next piece must come through the loop.
                for piece in [frame[0..<2], frame[2..<(2 + length / 2)], frame[(2 + length / 2)...]] {
                    try client.write(Array(piece))
                    sent += piece.count
                    try await read.wait("the server to read \(sent) bytes") { [sent] in $0 >= sent }
                }
                #expect(try await Self.read(frame.count, from: client) == frame)
            }
            // Back to back: a whole frame and the start of the next in one write, the rest at once.
            let first = Self.frame(300, 7)
            let second = Self.frame(400, 8)
            try client.write(first + second[0..<100])
            try client.write(Array(second[100...]))
            #expect(try await Self.read(first.count + second.count, from: client) == first + second)
            await client.close()
        }
    }
}
