/// Loads for a batch, which never throw: each outcome is an
/// `ImageLoadResult`, so a batch carries on past a failure. Here, above the
/// facade: the manager itself knows nothing of batches.
extension ImageManager {
    /// Loads one image and measures how long it took; never throws, so a
    /// batch can carry on past a failure.
    public func timedLoad(_ request: ImageRequest) async -> ImageLoadResult {
        await timedLoad(request, key: key(for: request.url))
    }

    /// `timedLoad`, with the URL's key already made.
    func timedLoad(_ request: ImageRequest, key: CacheKey) async -> ImageLoadResult {
        let start = MonotonicClock.now()
        let outcome: Result<ImageResponse, ImageCoreError>
        do {
            outcome = .success(try await load(request, key: key))
        } catch {
            outcome = .failure(ImageCoreError(reporting: error))
        }
        return ImageLoadResult(url: request.url, outcome: outcome, durationMs: (MonotonicClock.now() - start) * 1000)
    }

    /// Loads every request at once and hands the results to `deliver` in
    /// input order, each as soon as it and every earlier one are done (a fast
    /// second URL waits for a slow first). `completed` hears each index as
    /// it finishes, in completion order, for a progress display.
    public func loadInOrder(
        _ requests: [ImageRequest], completed: (Int) -> Void = { _ in },
        deliver: (Int, ImageLoadResult) -> Void
    ) async {
        await withTaskGroup(of: (Int, ImageLoadResult).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { (index, await self.timedLoad(request)) }
            }
            // Results arrive in completion order; hold each until every
            // earlier one has been delivered.
            var pending: [Int: ImageLoadResult] = [:]
            var next = 0
            for await (index, result) in group {
                pending[index] = result
                completed(index)
                while let result = pending.removeValue(forKey: next) {
                    deliver(next, result)
                    next += 1
                }
            }
        }
    }
}
