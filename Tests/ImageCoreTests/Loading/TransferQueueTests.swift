import Synchronization
import TestSupport
import Testing

@testable import ImageCore

/// Callers' continuations, shared with the tasks that made them.
private final class Continuations: Sendable {
    private let list = Mutex<[CheckedContinuation<DownloadResponse, any Error>]>([])

    func withLock<T>(_ body: (inout [CheckedContinuation<DownloadResponse, any Error>]) -> T) -> T {
        list.withLock { body(&$0) }
    }
}

/// The order in which queued transfers start: priority first, then FIFO or
/// LIFO, each only when its host's schedule allows.
struct TransferQueueTests {
    /// Transfers to `paths` on one host, with these priorities, queued in
    /// this order; `body` gets the queue, then every transfer's caller is
    /// failed so no continuation leaks.
    func withQueue(
        order: Downloader.Order, _ paths: [(String, DownloadRequest.Priority)],
        _ body: (inout TransferQueue) throws -> Void
    ) async throws {
        let continuations = Continuations()
        let callers = paths.map { _ in
            Task {
                _ = try? await withCheckedThrowingContinuation { continuation in
                    continuations.withLock { $0.append(continuation) }
                }
            }
        }
        #expect(await waitUntil { continuations.withLock { $0.count } == paths.count })
        var queue = TransferQueue(order: order)
        for (id, ((path, priority), continuation)) in zip(paths, continuations.withLock { $0 }).enumerated() {
            var request = DownloadRequest(url: "http://127.0.0.1:9/\(path)")
            request.priority = priority
            queue.append(
                QueuedTransfer(
                    id: UInt64(id), request: request, host: HostSchedule.host(of: request.url), body: nil,
                    continuation: continuation))
        }
        let outcome = Result { try body(&queue) }
        for continuation in continuations.withLock({ $0 }) {
            continuation.resume(throwing: ImageCoreError(.interrupted, "test over"))
        }
        for caller in callers { await caller.value }
        try outcome.get()
    }

    func admitted(
        _ queue: inout TransferQueue, _ slots: Int, _ schedule: inout HostSchedule, now: Double = 0
    )
        -> [String]
    {
        queue.admit(slots, schedule: &schedule, now: now).map { String($0.request.url.split(separator: "/").last!) }
    }

    @Test func higherPriorityFirstThenFIFO() async throws {
        try await withQueue(order: .fifo, [("a", .normal), ("b", .low), ("c", .normal), ("d", .high)]) { queue in
            var schedule = HostSchedule(rate: nil)
            #expect(admitted(&queue, 3, &schedule) == ["d", "a", "c"])
            #expect(admitted(&queue, 3, &schedule) == ["b"])
            #expect(queue.isEmpty)
        }
    }

    @Test func lifoStartsTheLastQueuedOfEqualPriorityFirst() async throws {
        try await withQueue(order: .lifo, [("a", .normal), ("b", .normal), ("c", .high), ("d", .normal)]) { queue in
            var schedule = HostSchedule(rate: nil)
            #expect(admitted(&queue, 4, &schedule) == ["c", "d", "b", "a"])
        }
    }

    /// `--rate 2/s`: the second start on a host waits half a second; the
    /// queue says when, and a removed transfer never starts.
    @Test func aHostsScheduleHoldsItsTransfersBack() async throws {
        try await withQueue(order: .fifo, [("a", .normal), ("b", .normal), ("c", .normal)]) { queue in
            var schedule = HostSchedule(rate: RequestRate(count: 2, period: 1))
            #expect(admitted(&queue, 3, &schedule, now: 100) == ["a"])
            let opening = try #require(queue.nextOpening(schedule))
            #expect(abs(opening - 100.5) < 0.001)
            #expect(queue.remove([1]).map(\.id) == [1])
            #expect(admitted(&queue, 3, &schedule, now: opening) == ["c"])
        }
    }
}
