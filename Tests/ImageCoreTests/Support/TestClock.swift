import TestSupport

@testable import ImageCore

#if !THREAD_SANITIZER
    // Under ThreadSanitizer, ImageCore's `Mutex` (System/SanitizerLocks.swift)
    // is the one TSan can see; importing this one too makes the name ambiguous.
    import Synchronization
#endif

/// A clock the test drives: time moves only when the test calls `advance`,
/// or, for a clock made `advancingWhenSlept`, when code sleeps (the sleep
/// returns at once, its time passed). Either way a test asserts how long
/// the code waited, on this clock, in microseconds of real time; a wait
/// that is too short or too long fails.
///
/// Thread safety: every method may be called from any thread or task concurrently.
final class TestClock: TimeSource {
    private struct Sleeper {
        let id: Int
        let deadline: Double
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var monotonic = 1000.0
        var wallOffset: Double
        var sleepers: [Sleeper] = []
        /// Sleeps cancelled before they were registered.
        var cancelledEarly: Set<Int> = []
        var nextID = 0
        var sleeps: [Double] = []
        var advancesWhenSlept: Bool
    }

    private let state: Mutex<State>

    /// A clock whose wall time starts at `wall` (now, unless given).
    init(wall: Double = WallClock.now(), advancingWhenSlept: Bool = false) {
        state = Mutex(State(wallOffset: wall - 1000, advancesWhenSlept: advancingWhenSlept))
    }

    /// Whether a sleep passes its own time and returns at once. A test that
    /// drove the first sleeps by hand may turn it on to let the code run to
    /// its end, so that a wrong turn fails the test instead of hanging it.
    var advancesWhenSlept: Bool {
        get { state.withLock { $0.advancesWhenSlept } }
        set { state.withLock { $0.advancesWhenSlept = newValue } }
    }

    func wallNow() -> Double { state.withLock { $0.monotonic + $0.wallOffset } }
    func monotonicNow() -> Double { state.withLock { $0.monotonic } }

    /// Every sleep asked for, in seconds, in order.
    var sleeps: [Double] { state.withLock { $0.sleeps } }
    /// Tasks suspended in `sleep` now.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Waits until `condition` holds, typically a count of sleepers: the
    /// state a test drives time from. Patient: in the full suite, tests that
    /// block the cooperative pool's threads on child processes have kept a
    /// task from running for over 30 s on a loaded machine, and for over five
    /// minutes in an AddressSanitizer run beside another build.
    func waitUntil(_ condition: () -> Bool) async -> Bool {
        await TestSupport.waitUntil(seconds: 900, condition)
    }

    func sleep(_ seconds: Double) async throws {
        let (id, advances) = state.withLock { state in
            state.sleeps.append(seconds)
            state.nextID += 1
            return (state.nextID, state.advancesWhenSlept)
        }
        if advances {
            advance(by: max(0, seconds))
            return try Task.checkCancellation()
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: (any Error)?? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return .some(CancellationError()) }
                    if seconds <= 0 { return .some(nil) }
                    state.sleepers.append(
                        Sleeper(id: id, deadline: state.monotonic + seconds, continuation: continuation))
                    return .none
                }
                switch resumeNow {
                case .some(let error?): continuation.resume(throwing: error)
                case .some(nil): continuation.resume()
                case .none: break
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves both clocks forward by `seconds` and wakes, in deadline order,
    /// every sleeper whose time has come.
    func advance(by seconds: Double) {
        let woken = state.withLock { state -> [Sleeper] in
            state.monotonic += seconds
            let now = state.monotonic
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }
}
