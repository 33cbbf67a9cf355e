/// The HTTP side of the network step: a request made conditional by a
/// stale entry's validators, the merge of a 304 into that entry, and
/// retries of transient failures.
extension NetworkFetch {
    /// The download for `request`: resumable into the entry's partial file
    /// (writable caches only), and conditional (`If-None-Match`,
    /// `If-Modified-Since`) when a stale entry lends its validators.
    func download(for request: ImageRequest, key: CacheKey, stale: CachedData?) -> DownloadRequest {
        var download = request.download
        if let writableCache { download.resumableBodyPath = writableCache.partialPath(key.hash) }
        if let entry = stale?.entry {
            if let etag = entry.etag { download.headers.append(HTTPHeader(name: "If-None-Match", value: etag)) }
            if let modified = entry.lastModified {
                download.headers.append(HTTPHeader(name: "If-Modified-Since", value: modified))
            }
        }
        return download
    }

    /// A 304 Not Modified: the stale entry's bytes with its metadata renewed
    /// from the response (and the renewed entry uploaded to remote storage).
    func merge(
        notModified downloaded: DownloadResponse, into stale: CachedData?, _ request: ImageRequest,
        key: CacheKey
    ) throws -> Fetched {
        guard let stale else {
            throw ImageCoreError(.http, "HTTP 304 Not Modified to a request that was not conditional", httpStatus: 304)
        }
        statistics.add(.revalidations)
        let response = stale.entry.response.updated(
            by: downloaded.headers, request: request.download,
            requestTime: downloaded.requestTime,
            responseTime: downloaded.responseTime)
        let (renewed, failure) = store.renew(stale, with: response, request, key: key)
        events.emit("revalidated (304 Not Modified): \(request.url)")
        return Fetched(
            info: renewed.entry.info, bytes: stale.bytes, stored: renewed, source: .revalidated, notStored: failure)
    }

    /// Downloads, retrying transient failures (network errors, 408, 429,
    /// 5xx) after an exponential backoff with jitter, or after the server's
    /// Retry-After when it gave one and it is not too long.
    func downloadRetrying(_ download: DownloadRequest, retries: Int) async throws -> DownloadResponse {
        var attempt = 0
        while true {
            do {
                return try await loader.download(download)
            } catch let error as ImageCoreError where error.isTransient && attempt < retries {
                let delay = RetryDelay.seconds(attempt: attempt, retryAfter: error.retryAfter)
                guard delay <= RetryDelay.longestWait else { throw error }
                attempt += 1
                let wait = Quantities.formatDuration((delay * 10).rounded() / 10)
                events.emit("\(download.url): \(error.message); retry \(attempt) of \(retries) in \(wait)")
                try await pause(delay)
            }
        }
    }

    /// Sleeps `seconds` on the step's clock, waking early with `.interrupted`
    /// on `cancelAll()`: the flag is read every 50 ms of the sleep. Each nap
    /// is a millisecond longer than what is left, so the last one ends past
    /// `end` (a wait is never short, and never more than 51 ms long).
    func pause(_ seconds: Double) async throws {
        let end = clock.monotonicNow() + seconds
        while clock.monotonicNow() < end {
            if cancelled.load(ordering: .relaxed) { throw ImageCoreError(.interrupted, "interrupted") }
            try? await clock.sleep(min(0.05, end - clock.monotonicNow()) + 0.001)
        }
        if cancelled.load(ordering: .relaxed) { throw ImageCoreError(.interrupted, "interrupted") }
    }
}
