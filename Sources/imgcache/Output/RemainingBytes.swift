/// The bytes a run still expects, for the progress bar's ETA (`fetch`'s
/// `TransferProgress` and `prefetch`'s `DownloadMeter`).
enum RemainingBytes {
    /// What running transfers announced and have not received, plus, for
    /// each of `notStarted` URLs, the average size of the finished transfers
    /// (before any finished: of those announced so far). Nil while URLs wait
    /// and no size is known yet.
    static func estimate(
        running: some Collection<(received: Int, expected: Int?)>, finishedBytes: Int, finishedTransfers: Int,
        notStarted: Int
    ) -> Int? {
        let runningRemaining = running.reduce(0) { $0 + max(0, ($1.expected ?? $1.received) - $1.received) }
        guard notStarted > 0 else { return runningRemaining }
        let announced = running.compactMap(\.expected)
        let (bytes, transfers) =
            finishedTransfers > 0 ? (finishedBytes, finishedTransfers) : (announced.reduce(0, +), announced.count)
        guard transfers > 0 else { return nil }
        return runningRemaining + notStarted * (bytes / transfers)
    }
}
