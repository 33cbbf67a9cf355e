/// What callers ask of `CurlMultiLoop`'s thread, and what it takes from
/// them at each turn: transfers queued, cancellations, the shutdown, and the
/// thread's own life. A value: the loop keeps it behind its `Mutex`, so each
/// method runs under that lock and calls out to nothing.
struct TransferInbox: Sendable {
    /// The loop thread's life.
    enum LoopThread {
        /// No transfer yet: `shutDown` cleans up libcurl itself.
        case notStarted
        /// Started (under the inbox's lock, with the first transfer), not yet
        /// joined or detached.
        case running(SystemThread)
        /// Joined or detached by a `shutDown`.
        case handedOff
    }

    /// What the loop should do at one turn.
    struct Work {
        var admitted: [QueuedTransfer] = []
        var cancelled: [UInt64] = []
        var cancelsEverything = false
        var shuttingDown = false
        /// When a queued transfer held back by its host's schedule may start.
        var nextOpening: Double?
        /// Queued transfers cancelled before they started: the loop fails
        /// them, outside the lock.
        var dropped: [QueuedTransfer] = []
    }

    private var queued: TransferQueue
    private var cancelled: Set<UInt64> = []
    private var cancelAll = false
    private(set) var shuttingDown = false
    var thread = LoopThread.notStarted
    private(set) var cleanedUp = false
    /// The wake-up elision. Whether the loop, at its last look, had a
    /// free slot: only then does a new transfer need to wake it. When
    /// every slot is busy, the loop admits queued transfers as others
    /// end (a finished or freed slot makes it look again at once), and a
    /// wake-up (a write to a socket pair, and a return from poll) per
    /// queued transfer would be wasted. A missed wake-up would leave a
    /// transfer queued until the poll's ceiling (`longestIdlePoll`):
    /// CurlMultiLoopTests make that an hour, so one hangs the test.
    private var wantsWork = false

    init(order: Downloader.Order) {
        queued = TransferQueue(order: order)
    }

    /// Queues `transfer`; returns whether the loop must be woken for it.
    mutating func add(_ transfer: QueuedTransfer) -> Bool {
        queued.append(transfer)
        defer { wantsWork = false }
        return wantsWork
    }

    /// Notes that `id` is to be cancelled, queued or running.
    mutating func cancel(_ id: UInt64) { cancelled.insert(id) }

    /// Cancels every transfer, and every one queued later (SIGINT).
    mutating func cancelEverything() { cancelAll = true }

    /// Starts the shutdown (every transfer cancelled) and hands the thread
    /// over to the caller to join or detach: what it was before.
    mutating func shutDown() -> LoopThread {
        shuttingDown = true
        cancelAll = true
        defer { if case .running = thread { thread = .handedOff } }
        return thread
    }

    /// Whether this is the first call: the one that cleans up libcurl's handles.
    mutating func cleanUp() -> Bool {
        defer { cleanedUp = true }
        return !cleanedUp
    }

    /// What the loop should do now, with `free` slots: transfers to start
    /// (in `TransferQueue`'s order), running transfers to cancel, and queued
    /// ones dropped.
    mutating func take(free: Int, schedule: inout HostSchedule, now: Double) -> Work {
        var work = Work(shuttingDown: shuttingDown)
        if cancelAll {
            work.dropped = queued.removeAll()
            // Stays set: a transfer queued after the signal (its load
            // was past the manager's check when it came) fails too,
            // instead of running to its end.
            work.cancelsEverything = true
        }
        if !cancelled.isEmpty {
            work.dropped += queued.remove(cancelled)
            work.cancelled = Array(cancelled)
            cancelled.removeAll()
        }
        work.admitted = queued.admit(free, schedule: &schedule, now: now)
        let stillFree = free - work.admitted.count
        if stillFree > 0 && !queued.isEmpty { work.nextOpening = queued.nextOpening(schedule) }
        wantsWork = stillFree > 0
        return work
    }
}
