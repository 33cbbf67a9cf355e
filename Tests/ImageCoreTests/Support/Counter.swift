@testable import ImageCore

#if !THREAD_SANITIZER
    // Under ThreadSanitizer, ImageCore's `Mutex` (System/SanitizerLocks.swift)
    // is the one TSan can see; importing this one too makes the name ambiguous.
    import Synchronization
#endif

/// A count that threads and tasks add to.
final class Counter: Sendable {
    private let count = Mutex(0)

    /// Adds one; returns the count with it.
    @discardableResult
    func add() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }

    /// The count now.
    var value: Int { count.withLock { $0 } }
}
