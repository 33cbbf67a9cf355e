/// The remote-storage part of the network step: a shared store's entry,
/// verified like a download, stored locally, and served if fresh.
extension NetworkFetch {
    /// What remote storage contributed.
    enum RemoteOutcome {
        /// A fresh entry: served without asking the origin.
        case served(Fetched)
        /// A stale entry, now stored locally: its validators make the origin's request conditional.
        case lendsValidators(CachedData)
    }

    /// Asks each remote store in turn; nil when none has a usable entry.
    func lookUpRemote(_ remote: RemoteCache, _ request: ImageRequest, key: CacheKey) async throws -> RemoteOutcome? {
        guard
            let hit = await remote.lookup(
                key, url: request.url, maxBytes: request.download.maxBytes,
                inspect: { [verify] in try await verify($0) })
        else { return nil }
        return try adopt(hit, request, key: key)
    }

    /// Before downloading a URL found nowhere: the fleet's lease for it
    /// (`RemoteCache+Leases.swift`). Either this process holds it and
    /// downloads, or another machine's entry arrived while it waited.
    func claimRemoteDownload(
        _ remote: RemoteCache, _ request: ImageRequest, key: CacheKey
    ) async throws -> (outcome: RemoteOutcome?, lease: RemoteLease?) {
        let claim = try await remote.claimDownload(
            key, url: request.url, maxBytes: request.download.maxBytes,
            inspect: { [verify] in try await verify($0) }, pause: { [self] in try await pause($0) })
        switch claim {
        case .uploaded(let hit): return (try adopt(hit, request, key: key), nil)
        case .leased(let lease): return (nil, lease)
        case .unclaimed: return (nil, nil)
        }
    }

    /// A verified remote entry, stored locally and served if fresh.
    private func adopt(_ hit: RemoteCache.Hit, _ request: ImageRequest, key: CacheKey) throws -> RemoteOutcome? {
        let decision = CachePolicy.decide(hit.entry, for: request, now: clock.wallNow())
        var local: CachedData?
        var failure: ImageCoreError?
        if decision != .mismatch && request.storesToDisk {
            let kept = store.keep(hit, request, key: key)
            (local, failure) = (kept.stored, kept.failure)
        }
        if decision == .serve && !request.refresh {
            events.emit("served from remote storage \(hit.storage): \(request.url)")
            return .served(
                Fetched(info: hit.info, bytes: hit.bytes, stored: local, source: .remote, notStored: failure))
        }
        return local.map { .lendsValidators($0) }
    }
}
