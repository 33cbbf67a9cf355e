import Synchronization

/// Coalesces identical loads: while one is running for a key, later callers
/// for the same key wait for its result instead of starting another download.
///
/// The first caller runs the work in its own task, and the others wait on
/// continuations it resumes: no task a key, no hop onto an actor and back
/// (an actor holding a `Task` a key cost a cold URL about 8 k instructions,
/// most of them the task's creation, its allocator's slabs and its
/// completion). So the first caller's task runs the shared work: when that
/// task is cancelled and the work fails, the callers waiting on it are not
/// handed its cancellation but look again, and one of them runs the work.
///
/// Thread safety: `run` may be called from any task, concurrently; the map
/// of running keys is behind a lock, never held while work runs or a
/// waiter is resumed.
final class InflightLoads<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// A caller waiting for another's run: resumed with its value, or with
    /// nil when that run ended before the caller could join it.
    private typealias Waiter = CheckedContinuation<Value?, any Error>
    /// Each key being run, with the callers waiting for its result.
    private let running = Mutex<[Key: [Waiter]]>([:])

    /// Runs `work` for `key`, or joins the run already in progress. Returns the
    /// value and whether this caller joined an existing run.
    func run(_ key: Key, _ work: () async throws -> Value) async throws -> (Value, joined: Bool) {
        while true {
            let first = running.withLock { running in
                // One hash of the key for the usual first caller (a look, then
                // an insert, hashed it twice): what was there, a run in
                // progress, is put back.
                guard let waiting = running.updateValue([], forKey: key) else { return true }
                running[key] = waiting
                return false
            }
            if first { return (try await runFirst(key, work), false) }
            if let value = try await join(key) { return (value, true) }
            // The run ended between the look and the joining: look again.
        }
    }

    /// Runs `work` as the key's first caller, then hands its outcome to
    /// every caller that joined meanwhile.
    private func runFirst(_ key: Key, _ work: () async throws -> Value) async throws -> Value {
        let outcome: Result<Value, any Error>
        do {
            outcome = .success(try await work())
        } catch {
            outcome = .failure(error)
        }
        let waiters = running.withLock { $0.removeValue(forKey: key) } ?? []
        // A cancellation is its caller's own: the others were not cancelled.
        let handedOn: Result<Value?, any Error> =
            if case .failure = outcome, Task.isCancelled { .success(nil) } else { outcome.map { $0 } }
        for waiter in waiters { waiter.resume(with: handedOn) }
        return try outcome.get()
    }

    /// How many callers wait for the run of `key` (tests wait for a count).
    func waiting(for key: Key) -> Int {
        running.withLock { $0[key]?.count ?? 0 }
    }

    /// Waits for the run of `key` in progress; nil if there is none any more.
    private func join(_ key: Key) async throws -> Value? {
        try await withCheckedThrowingContinuation { (waiter: Waiter) in
            let joined = running.withLock { running in
                guard running[key] != nil else { return false }
                running[key, default: []].append(waiter)
                return true
            }
            if !joined { waiter.resume(returning: nil) }
        }
    }
}
