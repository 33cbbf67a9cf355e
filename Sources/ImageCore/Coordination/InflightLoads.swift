/// Coalesces identical loads: while one is running for a key, later callers
/// for the same key wait for its result instead of starting another download.
actor InflightLoads<Value: Sendable> {
    private var running: [String: Task<Value, any Error>] = [:]

    /// Runs `work` for `key`, or joins the run already in progress. Returns the
    /// value and whether this caller joined an existing run.
    func run(_ key: String, _ work: @escaping @Sendable () async throws -> Value) async throws -> (Value, joined: Bool)
    {
        if let task = running[key] {
            return (try await task.value, true)
        }
        let task = Task { try await work() }
        running[key] = task
        defer { running[key] = nil }
        return (try await task.value, false)
    }
}
