import Synchronization

#if THREAD_SANITIZER
    // Its `Mutex` alias, which TSan can see (ImageCore's System/SanitizerLocks.swift).
    import ImageCore
#endif

/// Sums the byte progress of `fetch`'s downloads for its progress bar, with
/// the bytes still to come (`RemainingBytes`), which the bar's ETA follows.
/// Updated from the download thread, so the state sits behind a lock.
final class TransferProgress: Sendable {
    private struct State {
        /// Received and announced bytes per URL downloading now.
        var running: [Int: (received: Int, expected: Int?)] = [:]
        /// Bytes of finished transfers, and how many there were.
        var finishedBytes = 0
        var finishedTransfers = 0
        /// URLs done, from any source.
        var finished = 0
    }

    private let state = Mutex(State())
    private let count: Int
    private let bar: ProgressBar?

    init(count: Int, bar: ProgressBar?) {
        self.count = count
        self.bar = bar
    }

    /// A download of URL `index` has received `received` of `expected` bytes.
    func update(_ index: Int, received: Int, expected: Int?) {
        guard let bar else { return }
        bar.update(
            state.withLock { state in
                state.running[index] = (received, expected)
                return snapshot(state)
            })
    }

    /// URL `index` is done (from any source).
    func finish(_ index: Int) {
        guard let bar else { return }
        bar.update(
            state.withLock { state in
                state.finished += 1
                if let transfer = state.running.removeValue(forKey: index) {
                    state.finishedBytes += transfer.received
                    state.finishedTransfers += 1
                }
                return snapshot(state)
            })
    }

    private func snapshot(_ state: State) -> ProgressBar.State {
        let running = state.running.values
        return ProgressBar.State(
            done: state.finished, total: count, detail: "",
            bytes: state.finishedBytes + running.reduce(0) { $0 + $1.received },
            bytesExpected: count == 1 ? running.first?.expected : nil,
            bytesRemaining: RemainingBytes.estimate(
                running: running, finishedBytes: state.finishedBytes, finishedTransfers: state.finishedTransfers,
                notStarted: count - state.finished - running.count))
    }
}
