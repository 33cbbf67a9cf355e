/// Decides what a cached entry is good for (RFC 9111, private cache):
/// served as it is, served while revalidating, revalidated first, or not
/// usable for this request at all.
public enum CachePolicy {
    /// The decision for one entry and one request.
    public enum Decision: Sendable, Equatable {
        /// Fresh (or offline): serve without a request.
        case serve
        /// Stale within `stale-while-revalidate`: serve, then revalidate.
        case serveThenRevalidate
        /// Stale, `no-cache` or `--refresh`: ask the server first.
        case revalidate
        /// The entry was stored for other request headers (Vary): download anew.
        case mismatch
        /// Offline, stale, and the server forbids serving it stale.
        case refuse(String)
    }

    /// What to do with `entry` for `request` at `now`.
    public static func decide(_ entry: CacheEntry, for request: ImageRequest, now: Double) -> Decision {
        let stored = entry.response
        if let key = stored.variantKey,
            key == "*" || key != StoredResponse.variantKey(vary: stored.vary, request: request.download)
        {
            return request.network == .offline ? .refuse("cached for other request headers (Vary)") : .mismatch
        }
        let control = CacheControl(stored.cacheControl)
        let freshUntil = stored.freshUntil ?? -.infinity
        let fresh = now < freshUntil && !control.noCache
        if request.network == .offline {
            if fresh || !(control.mustRevalidate || control.noCache) { return .serve }
            return .refuse(
                "stale, and the server requires revalidation (\(control.noCache ? "no-cache" : "must-revalidate"))")
        }
        if fresh && (!request.refresh || control.immutable) { return .serve }
        if !fresh, !request.refresh, !control.mustRevalidate, let window = control.staleWhileRevalidate,
            now < freshUntil + window
        {
            return .serveThenRevalidate
        }
        return .revalidate
    }

    /// Whether a stale `entry` may be served at `now` because the origin
    /// failed transiently: within the response's `stale-if-error` window, or
    /// at any age with the caller's `--stale-if-error`; never under
    /// `must-revalidate`.
    public static func servesStaleOnError(_ entry: CacheEntry, for request: ImageRequest, now: Double) -> Bool {
        let control = CacheControl(entry.response.cacheControl)
        if control.mustRevalidate { return false }
        if request.staleIfError { return true }
        guard let window = control.staleIfError, let freshUntil = entry.response.freshUntil else { return false }
        return now < freshUntil + window
    }
}
