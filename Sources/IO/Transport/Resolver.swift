import CEpoll
import Glibc
import Locking

/// Name resolution with `getaddrinfo`, which blocks: it runs on a detached thread, bounded by a timeout.
enum Resolver {
    /// Resolves `host` to TCP addresses, IPv4 and IPv6, in the order the system prefers.
    /// Numeric addresses skip the resolver. `completion` runs on `loop`'s thread, exactly once.
    static func resolve(host: String, port: Int, timeout: Duration, loop: EventLoop,
                        completion: @escaping @Sendable (Result<[SocketAddress], TransportError>) -> Void) {
        if let address = SocketAddress(numericHost: host, port: port) {
            loop.execute { completion(.success([address])) }
            return
        }
        let once = Locked<(@Sendable (Result<[SocketAddress], TransportError>) -> Void)?>(completion)
        let finish: @Sendable (Result<[SocketAddress], TransportError>) -> Void = { result in
            guard let completion = once.withLock({ value in defer { value = nil }; return value }) else { return }
            loop.execute { completion(result) }
        }
        let timer = loop.schedule(after: timeout) {
            finish(.failure(.timedOut("resolving host \"\(host)\"", after: timeout)))
        }
        DetachedThread.start(name: "stream-resolver") {
            let result = lookUp(host: host, port: port)
            timer.cancel()
            finish(result)
        }
    }

    private static func lookUp(host: String, port: Int) -> Result<[SocketAddress], TransportError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            let reason = status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status))
            return .failure(.dns(host: host, reason: reason))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            if let address = current.pointee.ai_addr,
               current.pointee.ai_family == AF_INET || current.pointee.ai_family == AF_INET6 {
                addresses.append(SocketAddress(address, length: current.pointee.ai_addrlen))
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else { return .failure(.dns(host: host, reason: "no IPv4 or IPv6 address")) }
        return .success(addresses)
    }
}
