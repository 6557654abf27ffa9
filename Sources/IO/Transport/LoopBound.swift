/// A `Sendable` box for a loop-thread object (a ``Connection``, a ``Listener``, a handler) so that a closure
/// can carry it back to its loop. Reading ``value`` anywhere else traps.
public struct LoopBound<Value>: @unchecked Sendable {
    // @unchecked Sendable: the value is only reachable through `value`, which checks that the caller is on the
    // loop thread where the box was made; so the value is never used from two threads.
    private let storage: Value

    /// The loop whose thread may use the value.
    public let loop: EventLoop

    /// Boxes `value`. Must be called on `loop`'s thread.
    public init(_ value: Value, loop: EventLoop) {
        loop.assertInEventLoop()
        self.storage = value
        self.loop = loop
    }

    /// The boxed value. Must be read on the loop's thread.
    public var value: Value {
        loop.assertInEventLoop()
        return storage
    }
}
