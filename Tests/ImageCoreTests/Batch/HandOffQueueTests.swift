import TestSupport
import Testing

@testable import ImageCore

/// A prefetch's loads go to its workers, and their results back, first in
/// first out; a taker waits while there is none, and stops once the queue
/// is closed.
struct HandOffQueueTests {
    @Test func valuesQueuedBeforeAnyTakerAreTakenInOrderThenTheClosedQueueEnds() async {
        let queue = HandOffQueue<Int>()
        for value in 1...3 { queue.push(value) }
        #expect(await queue.next() == 1)
        queue.push(4)
        queue.close()
        var taken: [Int] = []
        while let next = await queue.next() { taken.append(next) }
        #expect(taken == [2, 3, 4])
    }

    @Test func theLongestWaitingTakerGetsTheNextValueAndClosingWakesTheOthersWithNone() async {
        let queue = HandOffQueue<Int>()
        let first = Task { await queue.next() }
        #expect(await waitUntil { queue.waitingTakers == 1 })
        let others = (0..<2).map { _ in Task { await queue.next() } }
        #expect(await waitUntil { queue.waitingTakers == 3 })
        queue.push(7)
        #expect(await first.value == 7)
        queue.close()
        for other in others { #expect(await other.value == nil) }
        #expect(queue.waitingTakers == 0)
        #expect(await queue.next() == nil)
    }
}
