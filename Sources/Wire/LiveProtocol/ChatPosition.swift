/// How far a client has read a stream's chat: the store's epoch and the last chat sequence number it applied.
///
/// Sent with `join` after a reconnect, so the server sends what was missed instead of everything again.
public struct ChatPosition: Sendable, Hashable {
    /// The store's epoch (a new store, or one wiped, has a new one: positions from before mean nothing).
    public var epoch: String
    /// The last chat sequence number applied.
    public var seq: Int64

    /// Creates a position.
    public init(epoch: String, seq: Int64) {
        self.epoch = epoch
        self.seq = seq
    }
}
