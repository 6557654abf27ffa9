extension EventLoop {
    /// Runs `work` on the loop thread like ``execute(_:)``, and says whether the loop took it: a caller holding a
    /// continuation must resume it itself when the loop has shut down.
    /// - Returns: false when the loop no longer accepts work.
    public func executeIfRunning(_ work: @escaping @Sendable () -> Void) -> Bool {
        tryExecute(work)
    }
}
