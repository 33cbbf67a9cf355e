/// How long to wait before retrying a transient failure.
enum RetryDelay {
    /// A Retry-After longer than this is not waited for: the failure is reported.
    static let longestWait: Double = 30

    /// The server's Retry-After if it gave one, else 0.5 s doubled per
    /// attempt (at most 8 s) with "equal jitter" (half fixed, half random),
    /// so processes that failed together do not retry together.
    static func seconds(attempt: Int, retryAfter: Double?) -> Double {
        if let retryAfter { return retryAfter }
        let backoff = min(8, 0.5 * Double(1 << min(attempt, 10)))
        return backoff / 2 + Double.random(in: 0...(backoff / 2))
    }
}
