import Locking
import TestSupport
import Testing
@testable import Transport

/// The loop's read buffer is reused by every read: bytes lent to a handler are right during the call, and the
/// arrays the default `connectionDidRead(_:bytes:)` gets are copies that later reads never overwrite.
@Suite struct ConnectionReadBufferTests {
    /// Keeps every array it is given and, for the lending entry, a copy of the bytes and where they were lent.
    private final class Keeper: ConnectionHandler, Sendable {
        let lends: Bool
        private let state = Watched<(arrays: [[UInt8]], addresses: Set<UInt>)>(([], []))
        init(lends: Bool) { self.lends = lends }

        var arrays: [[UInt8]] { state.value.arrays }
        var addresses: Set<UInt> { state.value.addresses }

        /// Returns once `count` bytes in all came.
        func wait(forTotal count: Int) async throws {
            try await state.wait("\(count) bytes read") { $0.arrays.reduce(0) { $0 + $1.count } >= count }
        }

        func connectionDidRead(_ connection: Connection, bytes: [UInt8]) {
            state.update { $0.arrays.append(bytes) }
        }

        func connectionDidRead(_ connection: Connection, buffer: UnsafeRawBufferPointer) {
            guard lends else {
                connectionDidRead(connection, bytes: [UInt8](buffer))
                return
            }
            let address = UInt(bitPattern: buffer.baseAddress)
            state.update {
                $0.arrays.append([UInt8](buffer))
                $0.addresses.insert(address)
            }
        }

        func connectionDidClose(_ connection: Connection, error: TransportError?) {}
    }

    /// Sends three distinct runs of bytes in separate writes (so they arrive in separate reads) and waits for them.
    private func sendRuns(to keeper: Keeper, on loop: EventLoop) async throws -> [UInt8] {
        let (port, _) = try await startListener(on: loop) { $0.handler = keeper }
        let client = try await AsyncConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(5), loop: loop)
        var sent: [UInt8] = []
        for value in [UInt8(1), 2, 3] {
            let run = [UInt8](repeating: value, count: 3000)
            try client.write(run)
            sent += run
            // Read before the next run is written, so each run comes in reads of its own.
            try await keeper.wait(forTotal: sent.count)
        }
        await client.close()
        return sent
    }

    @Test func arraysGivenToAHandlerOutliveLaterReads() async throws {
        try await withLoop { loop in
            let keeper = Keeper(lends: false)
            let sent = try await sendRuns(to: keeper, on: loop)
            let arrays = keeper.arrays
            #expect(arrays.count >= 3)
            #expect(arrays.flatMap { $0 } == sent)
            // The first read's array still holds the first run, though later reads went through the same buffer.
            #expect(arrays.first?.allSatisfy { $0 == 1 } == true)
        }
    }

    @Test func lentBytesAreRightDuringTheCallAndComeFromOneReusedBuffer() async throws {
        try await withLoop { loop in
            let keeper = Keeper(lends: true)
            let sent = try await sendRuns(to: keeper, on: loop)
            #expect(keeper.arrays.flatMap { $0 } == sent)
            #expect(keeper.arrays.count >= 3)
            #expect(keeper.addresses.count == 1)  // every read was lent the loop's one buffer
        }
    }

    @Test func aNestedLendGetsABufferOfItsOwn() async throws {
        try await withLoop { loop in
            let (outerIntact, distinct) = try await loop.submit { () -> (Bool, Bool) in
                loop.withReadBuffer { outer in
                    outer.initializeMemory(as: UInt8.self, repeating: 0xAA)
                    let distinct = loop.withReadBuffer { inner in
                        inner.initializeMemory(as: UInt8.self, repeating: 0x55)
                        return inner.baseAddress != outer.baseAddress
                    }
                    return (outer.allSatisfy { $0 == 0xAA }, distinct)
                }
            }
            #expect(outerIntact)
            #expect(distinct)
        }
    }
}
