/// `fetch`'s warm-hit path (the command line's `WarmHit`): step 1 for the
/// one case it answers without the concurrency runtime.
extension ImageManager {
    /// A fresh disk hit answered synchronously: the response, counted and
    /// logged as `lookUpDisk` counts and logs it, when the disk holds an
    /// entry `request` may be served as is; nil for anything else (stale,
    /// miss, Vary mismatch, over the limits, pixels, a read-only cache), which the caller
    /// then leaves to `load`. Counts nothing when it returns nil.
    public func freshDiskHit(_ request: ImageRequest) -> ImageResponse? {
        guard readOnlyReason == nil, !request.decodesPixels, request.encoding == nil else { return nil }
        let key = key(for: request.url)
        guard let cached = try? disk.lookup(key),
            CachePolicy.decide(cached.entry, for: request, now: WallClock.now()) == .serve
        else { return nil }
        let response = diskResponse(cached, request, key)
        // Over this run's limits: `load` says so, as for any other hit.
        guard (try? judgeByLimits(response, request)) != nil else { return nil }
        statistics.add(.diskHits)
        events.emit("served from disk: \(request.url)")
        return response
    }
}
