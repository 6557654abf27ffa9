/// A wait that reached its bound: what it waited for and what it saw instead.
public struct WaitTimeout: Error, CustomStringConvertible {
    /// What the test waited for, how long, and the last state it saw.
    public let description: String

    /// A failure that says `description`.
    public init(description: String) {
        self.description = description
    }
}
