import Glibc

/// An event source that owns one socket and only reads it (a ``Listener``, a ``UDPSocket``): adopted by its loop and
/// watched for input when it opens, closed once.
protocol DescriptorSource: EventSource {
    /// The loop that owns the source.
    var loop: EventLoop { get }
    /// The socket; -1 once closed.
    var fd: Int32 { get set }
    /// The id the loop gave the source (``EventLoop/adopt(_:)``).
    var id: UInt64 { get set }
}

extension DescriptorSource {
    /// Makes the loop own the source and watch its socket for input.
    /// - Throws: ``TransportError`` when the loop cannot watch it; the source is closed then.
    func watchInput() throws(TransportError) {
        id = loop.adopt(self)
        do {
            try loop.addDescriptor(fd, id: id, events: EpollEvents.input)
        } catch {
            closeDescriptor()
            throw error
        }
    }

    /// Stops watching the socket, closes it and releases the source's id; a second call does nothing.
    func closeDescriptor() {
        loop.assertInEventLoop()
        guard fd >= 0 else { return }
        loop.removeDescriptor(fd)
        Glibc.close(fd)
        fd = -1
        loop.release(id)
    }
}
