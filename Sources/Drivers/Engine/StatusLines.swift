/// Turns what the engine reports into the lines a person reads, for `stream broadcast`'s output and the iOS
/// extension's log alike: a line at once when a destination's connection changes (lost, an attempt failed, live
/// again, gave up), and the status line every `statusEvery` statistics refreshes, with a line per destination when
/// there are several.
public struct StatusLines: Sendable {
    /// One line, or a status line with its destinations' lines.
    public enum Line: Sendable, Hashable {
        /// A destination's connection changed.
        case connection(String)
        /// The status line, and a line per destination (none with a single destination).
        case status(String, destinations: [String])
    }

    /// The destinations' labels (stream keys masked), in the engine's output order.
    public let labels: [String]
    /// Statistics refreshes (one a second) per status line.
    public let statusEvery: Int
    private var previous: [BroadcastState]
    private var refreshes = 0

    /// Creates the lines of a broadcast to `labels`.
    /// - Parameters:
    ///   - labels: each output's label.
    ///   - statusEvery: refreshes per status line (1: every second; 5: every five seconds).
    public init(labels: [String], statusEvery: Int) {
        self.labels = labels
        self.statusEvery = max(1, statusEvery)
        previous = Array(repeating: .idle, count: labels.count)
    }

    /// The lines an event makes.
    /// - Parameters:
    ///   - event: what the engine reported.
    ///   - state: the broadcast's state now.
    ///   - statuses: each output's status now (read only for a status line).
    public mutating func lines(for event: BroadcastEngine.Event, state: BroadcastState,
                               statuses: @autoclosure () -> [BroadcastOutput.Status]) -> [Line] {
        switch event {
        case .output(let index, let status):
            guard labels.indices.contains(index) else { return [] }
            defer { previous[index] = status.state }
            return StatusText.connectionEvent(label: labels[index], from: previous[index], to: status)
                .map { [.connection($0)] } ?? []
        case .statistics(let statistics):
            refreshes += 1
            guard refreshes % statusEvery == 0 else { return [] }
            let destinations = labels.count > 1
                ? zip(labels, statuses()).map { StatusText.destinationLine(label: $0, $1) } : []
            return [.status(StatusText.statusLine(state, statistics), destinations: destinations)]
        }
    }
}
