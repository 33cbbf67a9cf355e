/// Step 1, lookup: the memory cache, then the disk cache under the HTTP
/// freshness rules (`CachePolicy`).
extension ImageManager {
    /// What the disk holds for a request.
    enum DiskLookup {
        /// Served as it is (fresh, or stale under `stale-while-revalidate`).
        case hit(ImageResponse)
        /// Stale: to be revalidated with the origin, or served if the origin fails and the entry allows it.
        case stale(CachedData)
        /// Nothing usable: absent, or stored for other request headers (Vary).
        case miss
    }

    /// The response this process already holds in memory, unless `--refresh`.
    func lookUpMemory(_ request: ImageRequest, key: CacheKey) -> ImageResponse? {
        guard !request.refresh, let remembered = memory.value(for: key.string) else { return nil }
        statistics.add(.memoryHits)
        events.emit("served from memory: \(request.url)")
        var response = remembered.response
        response.source = .memory
        return response
    }

    /// The disk entry for `key` and what the freshness rules say of it for
    /// this request. Throws `.notCached` when the request forbids both
    /// serving it and asking the origin (`only-if-cached` semantics).
    func lookUpDisk(_ request: ImageRequest, key: CacheKey) throws -> DiskLookup {
        if let answer = lookUpRecord(request, key: key) { return answer }
        guard let cached = try disk.lookup(key) else {
            statistics.add(.misses)
            return .miss
        }
        switch CachePolicy.decide(cached.entry, for: request, now: WallClock.now()) {
        case .serve:
            return served(cached, request, key)
        case .serveThenRevalidate:
            statistics.add(.diskHits)
            events.emit("served stale from disk, revalidating: \(request.url)")
            revalidateInBackground(request, key: key, stale: cached)
            return .hit(diskResponse(cached, request, key))
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

    /// The disk's answer from an entry's record alone, for a caller that
    /// needs no bytes: a fresh entry is a hit, an absent one a miss; nil for
    /// anything else (stale, damaged, or a caller that needs the bytes),
    /// which takes the full look-up.
    func lookUpRecord(_ request: ImageRequest, key: CacheKey) -> DiskLookup? {
        guard !request.needsBytes, request.encoding == nil, !request.decodesPixels else { return nil }
        switch disk.lookupWithoutBytes(
            key, accepting: { CachePolicy.decide($0, for: request, now: WallClock.now()) == .serve })
        {
        case .accepted(let present): return served(present, request, key)
        case .absent:
            statistics.add(.misses)
            return .miss
        case .undecided: return nil
        }
    }

    /// A fresh disk entry served as it is.
    private func served(_ cached: CachedData, _ request: ImageRequest, _ key: CacheKey) -> DiskLookup {
        statistics.add(.diskHits)
        events.emit("served from disk: \(request.url)")
        return .hit(diskResponse(cached, request, key))
    }

    /// A disk entry as a response.
    func diskResponse(_ cached: CachedData, _ request: ImageRequest, _ key: CacheKey) -> ImageResponse {
        ImageResponse(
            url: request.url, key: key, source: .disk, info: cached.entry.info, bytes: cached.bytes,
            entry: cached.entry, path: cached.path)
    }

    /// Revalidates a stale entry served under `stale-while-revalidate`;
    /// `finish()` waits for it, so the process does not exit mid-request.
    func revalidateInBackground(_ request: ImageRequest, key: CacheKey, stale: CachedData) {
        let task = Task { [self] in
            _ = try? await inflight.run(key.string) { [self] in
                try await fetchFromNetwork(request, key: key, stale: stale)
            }
        }
        backgroundWork.withLock { $0.append(task) }
    }
}
