/// Warms the cache with a stream of URLs (SDWebImagePrefetcher's job): a
/// bounded number of loads in flight, so memory stays flat however long the
/// list is, and a tally of the outcomes. The order downloads start in (FIFO
/// or LIFO) is the manager's `Configuration.order`.
public struct ImagePrefetcher: Sendable {
    /// Counts of a prefetch run.
    public struct Tally: Sendable {
        /// URLs handed on so far (answered from the cache or started). A URL
        /// read after the run was told to stop is not counted: it was never tried.
        public var total = 0
        /// Different cache keys among `total` (a duplicate, or the same URL
        /// with another `#fragment`, is served by the first's download);
        /// estimated past 16 384 of them (`distinctIsEstimate`).
        public var distinct = 0
        /// Whether `distinct` is an estimate (about 1.6 % off), which keeps
        /// memory flat however long the list is.
        public var distinctIsEstimate = false
        public var downloaded = 0
        /// Served from memory or the local disk.
        public var cached = 0
        /// Served from a remote storage (stored locally on the way).
        public var remote = 0
        public var revalidated = 0
        public var failed = 0
        /// On the failed-URL list, so not requested.
        public var skipped = 0
        /// Loads cut short by cancellation: not failures of their URLs.
        public var interrupted = 0
        /// Bytes downloaded.
        public var bytes = 0
        /// The kind of every failure, for the exit status.
        public var failureKinds: [ImageCoreError.Kind] = []
        /// Whether all input has been read, so `total` is final.
        public var inputEnded = false
        /// Whether the run stopped before the end of its input (`shouldStop`):
        /// the URLs after `total` were not read.
        public var stoppedEarly = false
        /// Why the input could not be read to its end (a directory, an I/O
        /// error), if it could not: the run stops reading there.
        public var inputError: ImageCoreError?

        /// URLs finished, whatever the outcome.
        public var done: Int { downloaded + cached + remote + revalidated + failed + skipped + interrupted }

        mutating func count(_ outcome: Result<ImageResponse, ImageCoreError>) {
            switch outcome {
            case .success(let response):
                switch response.source {
                case .downloaded:
                    downloaded += 1
                    bytes += response.bytes.count
                case .revalidated: revalidated += 1
                case .memory, .disk: cached += 1
                case .remote: remote += 1
                }
            case .failure(let error):
                failureKinds.append(error.kind)
                switch error.kind {
                case .interrupted: interrupted += 1
                case .failedBefore: skipped += 1
                default: failed += 1
                }
            }
        }
    }

    /// A load handed to a worker: the request and its key, made once a URL,
    /// and the line as given, which its result carries. A class: as a
    /// struct of these fields, each `Load?` the queue handed over was
    /// copied and destroyed through value witnesses (0.7 k instructions a
    /// cold URL); a reference is a retain and a release.
    private final class Load: Sendable {
        let request: ImageRequest
        let key: CacheKey
        let given: String

        init(request: ImageRequest, key: CacheKey, given: String) {
            self.request = request
            self.key = key
            self.given = given
        }
    }

    private let manager: ImageManager
    private let window: Int

    /// A prefetcher feeding `manager` at most `window` loads at once (a few
    /// more than the download slots keep the downloader's queue full). A
    /// fresh hit takes no load: it is answered where the list is read.
    public init(manager: ImageManager, window: Int) {
        self.manager = manager
        self.window = max(window, 1)
    }

    /// Loads every URL of `lines` (blank lines and lines starting with `#`
    /// skipped; white space around a URL ignored) with `makeRequest`'s
    /// options, until the input ends, cannot be read (`Tally.inputError`)
    /// or `shouldStop` says so; no load starts once it has. `progressed`
    /// hears the tally after each URL is queued; `finished` hears each result
    /// with the tally that counts it, in completion order. A result's `url`
    /// is the line as given (trimmed), the string `makeRequest` was called
    /// with: it may carry a `user:password@`, to be shown with `URLUserInfo.shown`.
    public func prefetch<Lines: AsyncSequence>(
        _ lines: Lines, makeRequest: @escaping @Sendable (String) -> ImageRequest, shouldStop: () -> Bool = { false },
        progressed: (Tally) -> Void = { _ in }, finished: (ImageLoadResult, Tally) -> Void
    ) async -> Tally where Lines.Element: StringProtocol {
        var tally = Tally()
        let manager = manager
        // Up to `window` workers, each running loads one after another, so
        // a load costs no task of its own; results come back in completion order.
        await withTaskGroup(of: Void.self) { workers in
            let queue = HandOffQueue<Load>()
            let completed = HandOffQueue<ImageLoadResult>()
            var inFlight = 0
            var workerCount = 0
            var seen = DistinctCounter()
            var iterator = lines.makeAsyncIterator()
            while true {
                let line: Lines.Element?
                do {
                    line = try await iterator.next()
                } catch {
                    let failure = ImageCoreError(reporting: error)
                    tally.inputError = failure
                    tally.failureKinds.append(failure.kind)
                    break
                }
                guard let line else {
                    tally.inputEnded = true
                    break
                }
                if shouldStop() {
                    tally.stoppedEarly = true
                    break
                }
                let url = String(line.trimmingSpaces())
                if url.isEmpty || url.hasPrefix("#") { continue }
                var request = makeRequest(url)
                // One key a URL, for the look-up, the count and the load.
                let key = manager.key(for: url)
                // A line `fetch` would refuse as an argument is refused in
                // its words and kind (usage), and nothing is asked for it:
                // libcurl's "malformed URL" (usage) and the downloader's
                // "only http, https and s3" (failure) told such lines apart.
                if let refusal = URLNormalization.refusal(of: url) {
                    tally.total += 1
                    seen.insert(key)
                    if !seen.isEstimate { tally.distinct = seen.count }
                    let refused = ImageLoadResult(
                        url: url, outcome: .failure(ImageCoreError(.usage, refusal)), durationMs: 0)
                    progressed(tally)
                    tally.count(refused.outcome)
                    finished(refused, tally)
                    continue
                }
                // A hit is answered here: no load, no thread woken.
                let start = MonotonicClock.now()
                if let response = manager.answerFromCache(&request, key: key) {
                    tally.total += 1
                    seen.insert(key)
                    if !seen.isEstimate { tally.distinct = seen.count }
                    let answered = ImageLoadResult(
                        url: url, outcome: .success(response), durationMs: (MonotonicClock.now() - start) * 1000)
                    progressed(tally)
                    tally.count(answered.outcome)
                    finished(answered, tally)
                    continue
                }
                if inFlight >= window, let result = await completed.next() {
                    inFlight -= 1
                    tally.count(result.outcome)
                    finished(result, tally)
                }
                // Stopped while waiting for a slot: this URL is not started.
                if shouldStop() {
                    tally.stoppedEarly = true
                    break
                }
                tally.total += 1
                seen.insert(key)
                if !seen.isEstimate { tally.distinct = seen.count }
                queue.push(Load(request: request, key: key, given: url))
                inFlight += 1
                // Every worker may be busy: one more, up to the window.
                if workerCount < inFlight {
                    workerCount += 1
                    workers.addTask {
                        while let load = await queue.next() {
                            var result = await manager.timedLoad(load.request, key: load.key).storedOrFailed
                            result.url = load.given
                            completed.push(result)
                        }
                    }
                }
                progressed(tally)
            }
            queue.close()
            tally.distinct = min(seen.count, tally.total)
            tally.distinctIsEstimate = seen.isEstimate
            while inFlight > 0, let result = await completed.next() {
                inFlight -= 1
                tally.count(result.outcome)
                finished(result, tally)
            }
        }
        return tally
    }
}

extension ImageLoadResult {
    /// A prefetch's job is the cache: an image delivered but not stored
    /// (`ImageResponse.notStored`: a full disk, an I/O error) is its failure.
    var storedOrFailed: Self {
        guard case .success(let response) = outcome, let notStored = response.notStored else { return self }
        var failed = self
        failed.outcome = .failure(notStored)
        return failed
    }
}
