/// A transfer waiting for one of the loop's slots.
struct QueuedTransfer: Sendable {
    let id: UInt64
    let request: DownloadRequest
    /// The request's host[:port], whose `--rate` and pauses it obeys.
    let host: Substring
    let body: TransferBody?
    let continuation: CheckedContinuation<DownloadResponse, any Error>
    /// Its place in the queue (order of arrival).
    fileprivate(set) var sequence: UInt64 = 0
}

/// The transfers waiting to start, and the rule by which they do: highest
/// priority first, then in FIFO or LIFO order, each only when its host's
/// schedule (`--rate`, Retry-After pauses) allows.
struct TransferQueue {
    private var waiting: [QueuedTransfer] = []
    private var nextSequence: UInt64 = 0
    private let order: Downloader.Order

    init(order: Downloader.Order) {
        self.order = order
    }

    var isEmpty: Bool { waiting.isEmpty }

    mutating func append(_ transfer: QueuedTransfer) {
        var transfer = transfer
        transfer.sequence = nextSequence
        nextSequence += 1
        waiting.append(transfer)
    }

    /// Takes every waiting transfer out.
    mutating func removeAll() -> [QueuedTransfer] {
        defer { waiting.removeAll() }
        return waiting
    }

    /// Takes the waiting transfers with these ids out.
    mutating func remove(_ ids: Set<UInt64>) -> [QueuedTransfer] {
        let removed = waiting.filter { ids.contains($0.id) }
        waiting.removeAll { ids.contains($0.id) }
        return removed
    }

    /// Takes out up to `slots` transfers that may start at `now`, in the
    /// order they should, noting each start in `schedule`.
    mutating func admit(_ slots: Int, schedule: inout HostSchedule, now: Double) -> [QueuedTransfer] {
        var admitted: [QueuedTransfer] = []
        admitted.reserveCapacity(min(slots, waiting.count))
        while admitted.count < slots, let next = nextIndex(schedule: schedule, now: now) {
            let transfer = waiting.remove(at: next)
            schedule.started(transfer.host, paced: transfer.request.isPaced, now: now)
            admitted.append(transfer)
        }
        return admitted
    }

    /// When the first transfer held back by its host's schedule may start.
    func nextOpening(_ schedule: HostSchedule) -> Double? {
        waiting.lazy.map { schedule.earliestStart($0.host, paced: $0.request.isPaced) }.min()
    }

    /// The waiting transfer to start next among those whose host allows it now.
    private func nextIndex(schedule: HostSchedule, now: Double) -> Int? {
        // Fields are read in place: copying a whole waiting transfer (its
        // request, continuation and body) to compare two of its fields cost
        // 4 k instructions an admission.
        var best: Int?
        for index in waiting.indices {
            guard
                schedule.isIdle
                    || schedule.earliestStart(waiting[index].host, paced: waiting[index].request.isPaced) <= now
            else { continue }
            guard let current = best else {
                best = index
                continue
            }
            let (priority, bestPriority) = (waiting[index].request.priority, waiting[current].request.priority)
            if priority != bestPriority {
                if priority > bestPriority { best = index }
            } else if order == .lifo && waiting[index].sequence > waiting[current].sequence {
                best = index
            }
        }
        return best
    }
}
