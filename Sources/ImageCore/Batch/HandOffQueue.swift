import Synchronization

/// Values handed from task to task, first in first out: a taker waits while
/// there is none, until the queue is closed. A prefetch hands its loads to a
/// few long-lived workers through one, and their results back through
/// another: a task a load was created, allocated its frames (about 85 KB in
/// a dozen slabs of the task's allocator, malloc'd and freed a load) and
/// destroyed again, and `AsyncStream`, generic code the compiler cannot
/// specialize, looked its types' metadata up for each value (5 k
/// instructions a URL).
///
/// Thread safety: `push` and `close` may be called from any task, `next`
/// from any number of tasks at once; the queue is behind a lock, never
/// held while a taker is resumed.
final class HandOffQueue<Element: Sendable>: Sendable {
    private struct State {
        /// Values not yet taken, from `head` on.
        var values: [Element] = []
        var head = 0
        /// Takers waiting for a value; resumed with nil once the queue is closed.
        var waiting: [CheckedContinuation<Element?, Never>] = []
        var closed = false

        mutating func take() -> Element? {
            guard head < values.count else { return nil }
            let value = values[head]
            head += 1
            if head == values.count {
                values.removeAll(keepingCapacity: true)
                head = 0
            }
            return value
        }
    }

    private let state = Mutex(State())

    /// Queues `value`, or hands it to the taker that has waited longest.
    func push(_ value: Element) {
        let taker = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            if !state.waiting.isEmpty { return state.waiting.remove(at: 0) }
            state.values.append(value)
            return nil
        }
        taker?.resume(returning: value)
    }

    /// The next value, waiting for one; nil once the queue is closed and empty.
    func next() async -> Element? {
        if let queued = state.withLock({ $0.take() }) { return queued }
        return await withCheckedContinuation { taker in
            // Looked at again under the lock: a value or the close may have come since.
            let answer = state.withLock { state -> Element?? in
                if let value = state.take() { return .some(value) }
                if state.closed { return .some(nil) }
                state.waiting.append(taker)
                return nil
            }
            if let answer { taker.resume(returning: answer) }
        }
    }

    /// No more values: takers waiting, and those that ask once the queue
    /// is empty, get nil.
    func close() {
        let waiting = state.withLock { state in
            state.closed = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for taker in waiting { taker.resume(returning: nil) }
    }

    /// How many takers wait for a value (tests wait for a count).
    var waitingTakers: Int { state.withLock { $0.waiting.count } }
}
