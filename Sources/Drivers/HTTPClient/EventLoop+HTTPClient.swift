import Transport

extension EventLoop {
    /// The process's shared client loop (``EventLoop/sharedClient()``), its failure said as an HTTP client's.
    static func sharedForHTTPClients() throws(HTTPClientError) -> EventLoop {
        do {
            return try sharedClient()
        } catch {
            throw HTTPClientError(.connectFailed, "cannot start the network event loop: \(error)")
        }
    }
}
