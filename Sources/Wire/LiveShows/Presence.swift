/// Distinct watchers of a show: sessions counted by watcher key (a user with two tabs counts once).
struct Presence: Sendable {
    private var sessions: [String: Int] = [:]

    /// Distinct watchers.
    var count: Int { sessions.count }

    /// Adds or removes sessions of a watcher. - Returns: whether the count changed.
    mutating func change(_ key: String, by delta: Int) -> Bool {
        let before = sessions.count
        let total = (sessions[key] ?? 0) + delta
        sessions[key] = total > 0 ? total : nil
        return sessions.count != before
    }
}
