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

    /// What the bar shows now, with the bytes still expected (`RemainingBytes`).
    var progressState: ProgressBar.State {
        state.withLock { state in
            let done = state.tally?.done ?? 0
            let total = state.tally.flatMap { $0.inputEnded ? $0.total : nil } ?? expectedTotal
            let runningBytes = state.running.values.reduce(0) { $0 + $1.received }
            let remaining = total.flatMap { total in
                RemainingBytes.estimate(
                    running: state.running.values, finishedBytes: state.finishedBytes,
                    finishedTransfers: state.finishedTransfers,
                    notStarted: max(0, total - done - state.running.count))
            }
            let tally = state.tally
            let counts = [tally?.downloaded ?? 0, tally?.cached ?? 0, (tally?.failed ?? 0) + (tally?.skipped ?? 0)]
            let remote = tally?.remote ?? 0
            return ProgressBar.State(
                done: done, total: total,
                detail: "\(counts[0]) downloaded, \(counts[1]) cached, "
                    + (remote > 0 ? "\(remote) remote, " : "") + "\(counts[2]) failed",
                bytes: state.finishedBytes + runningBytes, bytesRemaining: remaining)
        }
    }
}
