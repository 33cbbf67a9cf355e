/// Step 1, lookup: the memory cache, then the disk cache under the HTTP
/// freshness rules (`CachePolicy`), counted and logged. Synchronous: it
/// starts no task and needs no concurrency runtime, so `load`, prefetch's
/// answers where it reads the list (`ImageManager.answerFromCache`) and the
/// command line's warm hit all take this one way in.
///
/// Thread safety: every method may be called from any thread concurrently
/// (the memory cache is behind a lock, the disk cache is safe across processes).
struct Lookup: Sendable {
    /// What the memory cache holds per key.
    struct Remembered: Sendable {
        var response: ImageResponse
        /// The bytes and pixels held, and a little for the entry itself, so
        /// that many small images still fill the cache's limit.
        var cost: Int { response.bytes.count + (response.image?.cost ?? 0) + 512 }
    }

    /// How far a caller goes with the answer.
    enum Scope {
        /// `load`: whatever is found decides, and is counted.
        case decides
        /// A caller that serves only hits and hands anything else to `load`
        /// (prefetch's inline answers, the warm hit): only hits are counted,
        /// anything but a plain miss or a hit is `.undecided`, and a request
        /// that needs no bytes is answered from an entry's record alone.
        case hitsOnly
    }

    /// What memory and disk hold for a request.
    enum Answer {
        /// Served as it is: from memory, or a fresh disk entry.
        case hit(ImageResponse)
        /// Stale within `stale-while-revalidate`: served, and to be
        /// revalidated in the background by the caller.
        case hitThenRevalidate(ImageResponse, stale: CachedData)
        /// Stale: to be revalidated with the origin, or served if the origin fails and the entry allows it.
        case stale(CachedData)
        /// Nothing usable: absent, or stored for other request headers (Vary).
        /// Under `.hitsOnly` it is not counted: `load` counts it (see `ImageRequest.diskMissed`).
        case miss
        /// `.hitsOnly`: not a plain hit or miss (stale, damaged, over this
        /// run's limits, pixels asked for); `load` decides, and says why.
        case undecided
        /// The disk entry could not be read (an I/O error, a file that
        /// cannot be opened): a miss, counted as one, whose cause the
        /// response carries (`ImageResponse.notRead`). A cache is an
        /// optimisation: it never stops delivery (man page, EXIT STATUS).
        case unreadable(ImageCoreError)
    }

    let memory: MemoryCache<Remembered>
    let disk: DiskCache
    let limits: RunLimits
    let statistics: Statistics
    let events: EventLog
    /// Judges freshness (`wallNow`).
    let clock: any TimeSource

    /// Looks `request` up in memory, then on disk. Throws `.notCached` (only
    /// under `.decides`) when the request forbids both serving the entry and
    /// asking the origin (`only-if-cached` semantics).
    func look(_ request: ImageRequest, key: CacheKey, _ scope: Scope) throws -> Answer {
        if let remembered = memoryHit(request, key: key, scope) { return remembered }
        if request.diskMissed {
            // Found absent by an earlier `.hitsOnly` look: counted now, once.
            statistics.add(.misses)
            return .miss
        }
        if disk.isKnownAbsent(key) {
            // A cache this process made and has not stored this key into:
            // a miss, as the disk would say (another process's entry is
            // found under the download lock).
            switch scope {
            case .decides:
                statistics.add(.misses)
                return .miss
            case .hitsOnly:
                return request.decodesPixels || request.encoding != nil ? .undecided : .miss
            }
        }
        switch scope {
        case .decides:
            if let answer = recordOnly(request, key: key, .decides) {
                if case .miss = answer { statistics.add(.misses) }
                return answer
            }
            return try diskDecides(request, key: key)
        case .hitsOnly:
            guard !request.decodesPixels, request.encoding == nil else { return .undecided }
            if let answer = recordOnly(request, key: key, .hitsOnly) { return answer }
            guard !request.needsBytes else { return freshDiskHit(request, key: key) }
            return .undecided
        }
    }

    /// The response this process already holds in memory, unless `--refresh`
    /// (`.undecided` under `.hitsOnly` when it is over this run's limits).
    private func memoryHit(_ request: ImageRequest, key: CacheKey, _ scope: Scope) -> Answer? {
        guard !request.refresh, let remembered = memory.value(for: key.string) else { return nil }
        var response = remembered.response
        response.source = .memory
        if case .hitsOnly = scope, (try? limits.judge(response, request)) == nil { return .undecided }
        statistics.add(.memoryHits)
        events.emit("served from memory: \(request.url)")
        return .hit(response)
    }

    /// The disk entry for `key` and what the freshness rules say of it.
    private func diskDecides(_ request: ImageRequest, key: CacheKey) throws -> Answer {
        let found: CachedData?
        do {
            found = try disk.lookup(key)
        } catch let error as ImageCoreError where error.kind == .cacheIO {
            statistics.add(.misses)
            events.emit("cannot read the cached copy of \(request.url): \(error.message)")
            return .unreadable(error)
        }
        guard let cached = found else {
            statistics.add(.misses)
            return .miss
        }
        switch CachePolicy.decide(cached.entry, for: request, now: clock.wallNow()) {
        case .serve:
            return served(cached, request, key, .decides)
        case .serveThenRevalidate:
            statistics.add(.diskHits)
            events.emit("served stale from disk, revalidating: \(request.url)")
            return .hitThenRevalidate(ImageResponse(disk: cached, request, key), stale: cached)
        case .refuse(let why):
            throw ImageCoreError(.notCached, why)
        case .revalidate:
            return .stale(cached)
        case .mismatch:
            events.emit("cached for other request headers (Vary): \(request.url)")
            statistics.add(.misses)
            return .miss
        }
    }

    /// A fresh disk entry with its bytes, or `.undecided` counting nothing
    /// (a damaged entry found on the way is counted as damaged).
    private func freshDiskHit(_ request: ImageRequest, key: CacheKey) -> Answer {
        guard let cached = try? disk.lookup(key),
            CachePolicy.decide(cached.entry, for: request, now: clock.wallNow()) == .serve
        else { return .undecided }
        return served(cached, request, key, .hitsOnly)
    }

    /// The disk's answer from an entry's record alone, for a caller that
    /// needs no bytes: a fresh entry is a hit, an absent one a miss (not
    /// counted here); nil for anything else (stale, damaged, or a caller
    /// that needs the bytes), which takes the full look-up.
    private func recordOnly(_ request: ImageRequest, key: CacheKey, _ scope: Scope) -> Answer? {
        guard !request.needsBytes, request.encoding == nil, !request.decodesPixels else { return nil }
        switch disk.lookupWithoutBytes(
            key, accepting: { CachePolicy.decide($0, for: request, now: clock.wallNow()) == .serve })
        {
        case .accepted(let present): return served(present, request, key, scope)
        case .absent: return .miss
        case .undecided: return nil
        }
    }

    /// A fresh disk entry served as it is. Under `.hitsOnly`, an entry over
    /// this run's limits is `.undecided`, counted by nobody: `load` counts
    /// the hit and fails it (`RunLimits.judge`), as for any other hit.
    private func served(_ cached: CachedData, _ request: ImageRequest, _ key: CacheKey, _ scope: Scope) -> Answer {
        let response = ImageResponse(disk: cached, request, key)
        if case .hitsOnly = scope, (try? limits.judge(response, request)) == nil { return .undecided }
        statistics.add(.diskHits)
        events.emit("served from disk: \(request.url)")
        return .hit(response)
    }

    /// Keeps a rendition's response in the memory cache when it is new to
    /// this process or was just decoded (not when a stored variant answered).
    /// A picked frame or a thumbnail is not the whole image, so only the
    /// full decode is kept; encoded bytes are not kept.
    func remember(_ rendition: RenderedResponse, _ request: ImageRequest) {
        let response = rendition.response
        guard !rendition.fromStoredVariant, response.source != .memory || rendition.decoded else { return }
        let partial = request.frame != nil || request.scale != nil || rendition.partialPixels
        var remembered = response
        remembered.encoded = nil
        if partial { remembered.image = nil }
        let evicted = memory.set(
            Remembered(response: remembered), for: response.key.string,
            cost: Remembered(response: remembered).cost)
        if evicted > 0 { events.emit("evicted \(evicted) image(s) from memory") }
    }
}

extension ImageResponse {
    /// A disk entry as the response to `request`.
    init(disk cached: CachedData, _ request: ImageRequest, _ key: CacheKey) {
        self.init(
            url: request.url, key: key, source: .disk, info: cached.entry.info, bytes: cached.bytes,
            entry: cached.entry, path: cached.path)
    }
}
