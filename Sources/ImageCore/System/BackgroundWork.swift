import Dispatch

/// Runs blocking or CPU-heavy C work (decoding, encoding) on Dispatch's
/// global pool instead of the cooperative thread pool, which must never block.
/// The result passes to the task through `SanitizerHandOff`: a quick job (a
/// header inspected, a Redis reply) can resume before the task has
/// suspended, where ThreadSanitizer misses the continuation's ordering.
func runInBackground<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    defer { SanitizerHandOff.receive() }
    return try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            let result = Result { try work() }
            SanitizerHandOff.publish()
            continuation.resume(with: result)
        }
    }
}
