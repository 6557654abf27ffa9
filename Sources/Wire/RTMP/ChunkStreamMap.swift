/// Values by chunk stream id, for the chunk decoder and encoder: a table indexed by id for the ids a one-byte basic
/// header names (2...63: every chunk stream real encoders use), a dictionary for the rest.
///
/// The decoder looks a chunk stream up several times per chunk; hashing the id each time was a visible share of a
/// relay's work. A loop-thread value like its owner.
struct ChunkStreamMap<Value>: Sendable where Value: Sendable {
    /// Ids below this live in the table.
    static var tableSize: Int { 64 }

    private var table: [Value?] = []
    private var others: [UInt32: Value] = [:]
    /// How many ids have a value.
    private(set) var count = 0

    subscript(id: UInt32) -> Value? {
        get {
            if id < Self.tableSize {
                let index = Int(id)
                return index < table.count ? table[index] : nil
            }
            return others[id]
        }
        set {
            if id < Self.tableSize {
                let index = Int(id)
                if index >= table.count {
                    guard newValue != nil else { return }
                    table.append(contentsOf: repeatElement(nil, count: Self.tableSize - table.count))
                }
                let had = table[index] != nil
                table[index] = newValue
                count += (newValue != nil ? 1 : 0) - (had ? 1 : 0)
            } else {
                let had = others[id] != nil
                others[id] = newValue
                count += (newValue != nil ? 1 : 0) - (had ? 1 : 0)
            }
        }
    }

    /// Removes and returns the value of `id`.
    mutating func removeValue(forKey id: UInt32) -> Value? {
        guard let value = self[id] else { return nil }
        self[id] = nil
        return value
    }

    /// Calls `body` with the value of `id` in place (so an array value grows without a copy); does nothing when
    /// `id` has no value.
    mutating func modify(_ id: UInt32, _ body: (inout Value) -> Void) {
        if id < Self.tableSize {
            let index = Int(id)
            guard index < table.count, table[index] != nil else { return }
            body(&table[index]!)
        } else if others[id] != nil {
            body(&others[id]!)
        }
    }
}
