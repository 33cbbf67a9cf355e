import ImageCore
import Synchronization

/// `prefetch`'s progress as bytes arrive, not only as URLs finish: the
/// bytes of transfers still running, reported from the download thread,
/// with the latest tally from the prefetcher; the progress bar is drawn from
/// it on every update and by a timer, so a slow run shows its rate and ETA.
final class DownloadMeter: Sendable {
    private struct State {
        var tally: ImagePrefetcher.Tally?
        /// Received and announced bytes per URL downloading now.
        var running: [String: (received: Int, expected: Int?)] = [:]
        /// Bytes of finished transfers, and how many there were.
        var finishedBytes = 0
        var finishedTransfers = 0
    }

    private let state = Mutex(State())
    private let expectedTotal: Int?

    /// A meter for a run of `expectedTotal` URLs, when counted before the run.
    init(expectedTotal: Int?) {
        self.expectedTotal = expectedTotal
    }

    /// A transfer of `url` has received `received` of `expected` bytes.
    func received(_ url: String, _ received: Int, of expected: Int?) {
        state.withLock { $0.running[url] = (received, expected) }
    }

    /// The prefetcher's counts moved on; `finished` names a URL that is done.
    func counted(_ tally: ImagePrefetcher.Tally, finished url: String? = nil) {
        state.withLock { state in
            state.tally = tally
            if let url, let transfer = state.running.removeValue(forKey: url) {
                state.finishedBytes += transfer.received
                state.finishedTransfers += 1
            }
        }
    }

    /// What the bar shows now. The bytes still expected: what running
    /// transfers announced and have not received, plus, for URLs not started,
    /// the average size of the transfers so far.
    var progressState: ProgressBar.State {
        state.withLock { state in
            let done = state.tally?.done ?? 0
            let total = state.tally.flatMap { $0.inputEnded ? $0.total : nil } ?? expectedTotal
            let runningBytes = state.running.values.reduce(0) { $0 + $1.received }
            let announced = state.running.values.compactMap(\.expected)
            let runningRemaining = state.running.values.reduce(0) {
                $0 + max(0, ($1.expected ?? $1.received) - $1.received)
            }
            let sizes =
                state.finishedTransfers > 0
                ? (state.finishedBytes, state.finishedTransfers) : (announced.reduce(0, +), announced.count)
            var remaining: Int?
            if let total, sizes.1 > 0 {
                let notStarted = max(0, total - done - state.running.count)
                remaining = runningRemaining + notStarted * (sizes.0 / sizes.1)
            }
            let tally = state.tally
            let counts = [tally?.downloaded ?? 0, tally?.cached ?? 0, (tally?.failed ?? 0) + (tally?.skipped ?? 0)]
            return ProgressBar.State(
                done: done, total: total,
                detail: "\(counts[0]) downloaded, \(counts[1]) cached, \(counts[2]) failed",
                bytes: state.finishedBytes + runningBytes, bytesRemaining: remaining)
        }
    }
}
