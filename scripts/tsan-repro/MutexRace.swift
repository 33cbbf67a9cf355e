// ThreadSanitizer reports races on this correct program on Linux (Swift 6.3.1):
// Synchronization.Mutex locks with raw futex calls TSan cannot see. `make sanitize`
// therefore builds with -DTHREAD_SANITIZER, which swaps in PThreadMutex; run this with
// `swiftc -sanitize=thread` to check whether a newer toolchain has fixed it.
import Synchronization
import Glibc
final class Box: Sendable { let m = Mutex<[Int]>([]) }
let box = Box()
var threads: [pthread_t] = []
for _ in 0..<4 {
    var t = pthread_t()
    pthread_create(&t, nil, { _ in
        for i in 0..<10000 { box.m.withLock { $0.append(i) } }
        return nil
    }, nil)
    threads.append(t)
}
for t in threads { pthread_join(t, nil) }
print(box.m.withLock { $0.count })
