import Synchronization

#if THREAD_SANITIZER
    // Its `Mutex` alias, which TSan can see (ImageCore's System/SanitizerLocks.swift).
    import ImageCore
#endif

/// Sums the byte progress of `fetch`'s downloads for its progress bar, and
/// estimates the bytes still to come (what running transfers announced and
/// have not received, plus the average size so far for URLs not started),
/// which the bar's ETA follows. Updated from the download thread, so the
/// state sits behind a lock.
final class TransferProgress: Sendable {
    private struct State {
        /// Per URL that has had a transfer: bytes received and announced.
        var received: [Int: Int] = [:]
        var expected: [Int: Int?] = [:]
        /// URLs done, from any source.
        var finished: Set<Int> = []
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
                state.received[index] = received
                state.expected[index] = expected
                return snapshot(state)
            })
    }

    /// URL `index` is done (from any source).
    func finish(_ index: Int) {
        guard let bar else { return }
        bar.update(
            state.withLock { state in
                state.finished.insert(index)
                return snapshot(state)
            })
    }

    private func snapshot(_ state: State) -> ProgressBar.State {
        let bytes = state.received.values.reduce(0, +)
        let sizes = state.expected.values.compactMap { $0 }
        let allKnown = sizes.count == state.expected.count && !sizes.isEmpty
        let running = state.received.keys.filter { !state.finished.contains($0) }
        let runningRemaining = running.reduce(0) { sum, index in
            sum + max(0, (state.expected[index] ?? nil).map { $0 - state.received[index, default: 0] } ?? 0)
        }
        let finishedSizes = state.received.filter { state.finished.contains($0.key) }.map(\.value)
        let typical = finishedSizes.isEmpty ? sizes : finishedSizes
        let notStarted = count - state.finished.count - running.count
        let remaining =
            notStarted == 0 || !typical.isEmpty
            ? runningRemaining + notStarted * (typical.isEmpty ? 0 : typical.reduce(0, +) / typical.count) : nil
        return ProgressBar.State(
            done: state.finished.count, total: count, detail: "", bytes: bytes,
            bytesExpected: allKnown && count == 1 ? sizes.reduce(0, +) : nil, bytesRemaining: remaining)
    }
}
