/// The outcome of one load with how long it took: what `fetch --json` and
/// `prefetch --json` report per URL.
public struct ImageLoadResult: Sendable {
    /// The URL that was asked for: the request's (without user info) from
    /// `ImageManager.timedLoad`, the line as given from `ImagePrefetcher`,
    /// where it may carry a password (print it with `URLUserInfo.shown`).
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
