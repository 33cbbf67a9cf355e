/// The outcome of one load with how long it took: what `fetch --json` and
/// `prefetch --json` report per URL.
public struct ImageLoadResult: Sendable {
    /// The URL that was asked for.
    public var url: String
    /// The response, or the failure as an `ImageCoreError`.
    public var outcome: Result<ImageResponse, ImageCoreError>
    /// Wall time of the load, in milliseconds.
    public var durationMs: Double
}

extension ImageCoreError {
    /// `error` as an `ImageCoreError`: itself, `.interrupted` for a
    /// cancellation, else `.failure` with its description.
    public init(reporting error: any Error) {
        if let error = error as? ImageCoreError {
            self = error
        } else if error is CancellationError {
            self.init(.interrupted, "interrupted")
        } else {
            self.init(.failure, "\(error)")
        }
    }
}

extension ImageManager {
    /// Loads one image and measures how long it took; never throws, so a
    /// batch can carry on past a failure.
    public func timedLoad(_ request: ImageRequest) async -> ImageLoadResult {
        let start = WallClock.monotonic()
        let outcome: Result<ImageResponse, ImageCoreError>
        do {
            outcome = .success(try await load(request))
        } catch {
            outcome = .failure(ImageCoreError(reporting: error))
        }
        return ImageLoadResult(url: request.url, outcome: outcome, durationMs: (WallClock.monotonic() - start) * 1000)
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
