import Dispatch

/// Runs blocking or CPU-heavy C work (decoding, encoding) on Dispatch's
/// global pool instead of the cooperative thread pool, which must never block.
func runInBackground<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try work() })
        }
    }
}
