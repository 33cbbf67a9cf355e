/// Between lookup and the network: whether a miss may go out at all
/// (offline, the failed-URL list, cancellation), and what a failed fetch
/// leaves behind (a stale entry served on error, a failed-URL record).
extension NetworkFetch {
    /// Checks that `request` may use the network; returns the digest of what
    /// it sends that can change the answer (credentials, the AWS ones an
    /// `s3://` URL is signed with included, cookies, headers, where an
    /// `s3://` URL is sent and the signature's region),
    /// which keys its failed-URL record (nil when it sends nothing such).
    func admit(_ request: ImageRequest, key: CacheKey) throws -> String? {
        guard request.network == .allowed else {
            throw ImageCoreError(.notCached, "not in the cache (offline)")
        }
        let cookies = cookieJar.flatMap { try? POSIXFile.read($0, limit: 1 << 20) }
        let sent = loader.requestAsSent(request.download)
        // Where an `s3://` URL goes (the endpoint, the region) is the
        // environment's, not the URL's: a 404 from a wrong endpoint must not
        // refuse the URL once the endpoint is right.
        let requestDigest = FailedURLRegistry.requestDigest(
            sent, cookies: cookies, sentTo: sent.url == request.download.url ? nil : sent.url)
        if !request.retriesFailed, let failure = failedURLs.record(for: key, requestDigest: requestDigest),
            limits.stillRefuses(failure, request)
        {
            let higher = failure.limit.map { " or a --\($0.name.rawValue) above \($0.value)" } ?? ""
            throw ImageCoreError(
                .failedBefore,
                "failed before (\(failure.message), \(HTTPDate.iso8601(failure.failedAt))); "
                    + "use --retry-failed\(higher) to try again")
        }
        if cancelled.load(ordering: .relaxed) { throw ImageCoreError(.interrupted, "interrupted") }
        return requestDigest
    }

    /// After a failed fetch: serves the stale entry if the error is transient
    /// and the entry allows it (`stale-if-error`); otherwise counts the
    /// failure, remembers a permanent one, and rethrows.
    func recover(
        from error: ImageCoreError, _ request: ImageRequest, key: CacheKey, stale: CachedData?,
        requestDigest: String?
    ) throws -> ImageResponse {
        if let stale, error.isTransient, CachePolicy.servesStaleOnError(stale.entry, for: request, now: clock.wallNow())
        {
            statistics.add(.diskHits)
            events.emit("served stale from disk after an error: \(request.url): \(error.message)")
            return ImageResponse(disk: stale, request, key)
        }
        if error.kind != .interrupted { statistics.add(.failures) }
        let (remembered, limitValue) = limits.remembers(error, request)
        // A cache not written (read-only, `--no-store`) remembers nothing; nor
        // is a refusal of this machine's clock the URL's (`blamesTheClock`).
        if !error.isTransient && [.http, .image].contains(error.kind) && remembered && writableCache != nil
            && !error.blamesTheClock
        {
            try? failedURLs.add(
                key, requestDigest: requestDigest, url: request.url, error: error, limitValue: limitValue)
            // The origin no longer serves what the stale entry holds.
            if stale != nil { _ = try? disk.remove(key) }
        }
        throw error
    }
}
