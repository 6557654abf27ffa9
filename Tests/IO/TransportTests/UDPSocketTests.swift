import ByteIO
import Locking
import TestSupport
import Testing
@testable import Transport

@Suite(.startsPeers) struct UDPSocketTests {
    /// A Python UDP echo peer (the kernel's sockets as another program uses them) sends back what ours sends, and
    /// the source ours sees is the peer's address.
    @Test func exchangesDatagramsWithAnotherProgram() async throws {
        let echo = try BackgroundProcess("python3", ["-c", """
            import socket, sys
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind(("127.0.0.1", 0))
            print("PORT", s.getsockname()[1], flush=True)
            for _ in range(3):
                data, peer = s.recvfrom(4096)
                s.sendto(data[::-1], peer)
            """])
        let line = try echo.readLine()
        let portText = line.hasPrefix("PORT ") ? line.split(separator: " ").last : nil
        let port = try #require(portText.flatMap { UInt16($0) })
        let peer = try #require(TransportAddress(host: "127.0.0.1", port: port))
        #expect(peer.description == "127.0.0.1:\(port)")
        let received = Watched<[([UInt8], TransportAddress)]>([])
        try await withLoop { loop in
            let socket = try await loop.submit {
                LoopBound(try UDPSocket.bind(host: "127.0.0.1", on: loop) { bytes, source in
                    received.update { $0.append((bytes, source)) }
                }, loop: loop)
            }
            let sizes = [1, 1200, 2000]
            for size in sizes {
                let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0) }
                #expect(try await loop.submit { socket.value.send(bytes, to: peer) })
            }
            let got = try await received.wait("\(sizes.count) echoed datagrams", within: .seconds(5)) {
                $0.count >= sizes.count
            }
            #expect(got.map(\.0.count) == sizes)
            #expect(got.allSatisfy { $0.1 == peer })
            #expect(got.last?.0 == (0..<2000).map { UInt8(truncatingIfNeeded: $0) }.reversed())
            try await loop.submit { socket.value.close() }
            #expect(try await loop.submit { socket.value.send([1], to: peer) } == false)
        }
        echo.stop()
    }

    @Test func bindingAnAddressThatIsNotNumericFails() async throws {
        try await withLoop { loop in
            let error = await #expect(throws: TransportError.self) {
                try await loop.submit { _ = try UDPSocket.bind(host: "localhost", on: loop) { _, _ in } }
            }
            #expect(error?.description.contains("numeric") == true)
        }
    }

    @Test func interfaceAddressesListLoopbackOnlyWhenAsked() throws {
        let all = InterfaceAddresses.current(includeLoopback: true)
        #expect(all.contains(TransportAddress(host: "127.0.0.1", port: 0)!))
        let outside = InterfaceAddresses.current(includeLoopback: false)
        #expect(!outside.contains { $0.ip == [127, 0, 0, 1] || $0.ip == [UInt8](repeating: 0, count: 15) + [1] })
        // IPv4 first, and no link-local IPv6 (fe80::/10).
        if let firstV6 = all.firstIndex(where: { $0.ip.count == 16 }) {
            #expect(all[firstV6...].allSatisfy { $0.ip.count == 16 })
        }
        #expect(!all.contains { $0.ip.count == 16 && $0.ip[0] == 0xFE && $0.ip[1] & 0xC0 == 0x80 })
    }

    @Test func addressesRoundTripThroughTheKernelForm() throws {
        let v6 = try #require(TransportAddress(host: "2001:db8::7", port: 5004))
        #expect(v6.ip.count == 16)
        #expect(v6.description == "[2001:db8::7]:5004")
        #expect(TransportAddress(v6.socketAddress) == v6)
        #expect(TransportAddress(ip: [1, 2, 3], port: 1) == nil)
    }
}
