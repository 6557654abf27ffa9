import Foundation
import TestSupport

/// Hostile peers made of raw sockets: half-sent heads, smuggling vectors, WebSockets that never read.
enum HostilePeers {
    /// Raises this process's open-file limit to its hard limit (a thousand sockets on each side of a loopback test
    /// pass the usual soft limit of 1024).
    static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// Sends `request`, then reads until the server closes.
    /// - Returns: everything the server sent.
    static func exchange(_ request: [UInt8], port: Int, timeout: TimeInterval = 5) throws -> String {
        let socket = try RawSocket.connect(port: port)
        defer { socket.close() }
        try socket.write(request)
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while let bytes = try socket.read(timeout: max(0.01, deadline.timeIntervalSinceNow)) {
            received += bytes
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Opens a WebSocket by hand (RFC 6455 §4.1's example key) and returns the socket after the 101.
    static func webSocket(port: Int, path: String, receiveBufferSize: Int? = nil) throws -> RawSocket {
        let socket = try RawSocket.connect(port: port, receiveBufferSize: receiveBufferSize)
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try socket.write(Array(request.utf8))
        var head: [UInt8] = []
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard let byte = try socket.read(maximum: 1, timeout: 5) else {
                throw Subprocess.Failure(description: "the server closed during the WebSocket handshake")
            }
            head += byte
        }
        guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
            throw Subprocess.Failure(description: "no 101: \(String(decoding: head, as: UTF8.self))")
        }
        return socket
    }

    /// Reads frames until a close frame and returns its code (nil if the connection ended without one).
    static func closeCode(from socket: RawSocket, timeout: TimeInterval = 5) throws -> UInt16? {
        var buffer: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            // Server frames: byte 0 opcode, byte 1 length (unmasked, short frames only here).
            if buffer.count >= 2 {
                let length = Int(buffer[1] & 0x7F)
                if buffer.count >= 2 + length {
                    if buffer[0] & 0x0F == 0x8 {
                        return length >= 2 ? UInt16(buffer[2]) << 8 | UInt16(buffer[3]) : 1005
                    }
                    buffer.removeFirst(2 + length)
                    continue
                }
            }
            guard let bytes = try socket.read(timeout: max(0.01, deadline.timeIntervalSinceNow)) else { return nil }
            buffer += bytes
        }
    }
}
