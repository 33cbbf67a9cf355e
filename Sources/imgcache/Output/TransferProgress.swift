import Synchronization

#if THREAD_SANITIZER
    // Its `Mutex` alias, which TSan can see (ImageCore's System/SanitizerLocks.swift).
    import ImageCore
#endif

/// Sums the byte progress of `fetch`'s downloads for its progress bar.
/// Updated from the download thread, so the state sits behind a lock.
final class TransferProgress: Sendable {
    private struct State {
        var received: [Int: Int] = [:]
        var expected: [Int: Int?] = [:]
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
                state.finished += 1
                return snapshot(state)
            })
    }

    private func snapshot(_ state: State) -> ProgressBar.State {
        let bytes = state.received.values.reduce(0, +)
        let sizes = state.expected.values.compactMap { $0 }
        let allKnown = sizes.count == state.expected.count && !sizes.isEmpty
        return ProgressBar.State(
            done: state.finished, total: count, detail: "", bytes: bytes,
            bytesExpected: allKnown && count == 1 ? sizes.reduce(0, +) : nil)
    }
}
