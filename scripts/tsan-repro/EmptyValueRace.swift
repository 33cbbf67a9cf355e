// ThreadSanitizer reports a race on this correct program on Linux (Swift 6.3.1): a stored
// property of an empty type (here `Void`) is laid out at offset 0, on the object's header, so
// the exclusivity check's modifying access to it inside the lock looks like a write to the
// header, which every caller reads (for the generic metadata) before it locks. With `Locked(0)`
// it is silent. PThreadMutex therefore keeps its value behind a pointer. Run with
// `swiftc -sanitize=thread EmptyValueRace.swift`.
import Glibc
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    init(_ v: Value) { value = v; lock = .allocate(capacity: 1); pthread_mutex_init(lock, nil) }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        pthread_mutex_lock(lock); defer { pthread_mutex_unlock(lock) }
        return body(&value)
    }
}
let box = Locked(())
var threads: [pthread_t] = []
for _ in 0..<4 {
    var t = pthread_t()
    pthread_create(&t, nil, { _ in for _ in 0..<1000 { box.withLock { _ in } }; return nil }, nil)
    threads.append(t)
}
for t in threads { pthread_join(t, nil) }
print("done")
