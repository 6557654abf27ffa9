/// Checks `condition` every `interval` until it holds, for a state that no callback reports (a count a server
/// keeps, the process's memory): fails at `timeout` with what it waited for and the last thing it saw.
/// - Parameters:
///   - what: what the test waits for, for the failure.
///   - timeout: the bound.
///   - interval: the pause between two checks.
///   - seen: the state to report if the bound passes.
///   - condition: whether the wait is over.
/// - Throws: ``WaitTimeout`` when `timeout` passes first, or what `condition` throws.
public func eventually(_ what: String, within timeout: Duration = .seconds(10),
                       every interval: Duration = .milliseconds(10), seen: () -> String = { "" },
                       _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            let last = seen()
            throw WaitTimeout(description: "timed out after \(timeout) waiting for \(what)"
                              + (last.isEmpty ? "" : "; saw \(last)"))
        }
        try await Task.sleep(for: interval)
    }
}
