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
        let decision = CachePolicy.decide(hit.entry, for: request, now: WallClock.now())
        var local: CachedData?
        if decision != .mismatch && request.storesToDisk {
            local = try store.keep(hit, request, key: key)
        }
        if decision == .serve && !request.refresh {
            events.emit("served from remote storage \(hit.storage): \(request.url)")
            return .served(Fetched(info: hit.info, bytes: hit.bytes, stored: local, source: .remote))
        }
        return local.map { .lendsValidators($0) }
    }
}
