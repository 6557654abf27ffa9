/// Where a show is: `idle` before any picture is published, `live` while a host picture is, `ended` after the
/// host's `end()` until the host goes live again.
public enum ShowState: String, Sendable, Hashable, CaseIterable {
    /// Nothing is published, and the host did not end the show.
    case idle
    /// At least one host picture is published.
    case live
    /// The host ended the show; OBS cannot restart it until the host goes live again.
    case ended
}
