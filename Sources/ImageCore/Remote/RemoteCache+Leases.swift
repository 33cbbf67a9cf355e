/// Fleet-wide single flight: before downloading a URL found nowhere, a
/// machine takes a lease for its key in the first writable store that holds
/// leases (Redis; S3; an HTTP server that makes collections with MKCOL). A machine
/// that finds the lease taken polls that store for the entry, with backoff,
/// trying the lease again each time: it stops when the entry arrives, when
/// it gets the lease (the holder gave it up, or died and it expired), or
/// when the lease's expiry (as the store last reported it: a live holder
/// renews it) passes by a margin without the lease coming free, and then
/// downloads itself.
///
/// A lease request that failed in a way that may pass (a timeout, a 5xx) is
/// sent once more, with the same token: the first may have been written
/// and only its answer lost, and a store finds the lease its own token
/// holds to be this machine's, so the machine neither waits on its own
/// lease nor takes a second (an HTTP store whose MKCOL's answer was lost
/// finds a lease without a holder, whose maker it cannot know: it waits
/// that lease's duration, as for another's). Taking it again, rather than downloading
/// without it, keeps the other machines waiting on one download. If the
/// second fails too, the machine downloads without a lease; one that was
/// written all the same runs out unrenewed, and the machines waiting on it
/// find the upload first (or take it once it ran out).
extension RemoteCache {
    /// What the stores say about a download about to start.
    enum DownloadClaim: Sendable {
        /// This process holds the lease: download, then `end` it.
        case leased(RemoteLease)
        /// Another machine's entry arrived (verified) while this one waited.
        case uploaded(Hit)
        /// No lease to be had (no store holds leases, one failed, the wait
        /// ran out): download without one.
        case unclaimed
    }

    /// Longest pause between two polls, and the time allowed past a lease's
    /// duration before a waiter downloads without it.
    static let longestPoll = 1.0
    static let leaseMargin = 1.0

    /// Takes the lease for `key`, or waits for the machine that holds it.
    /// `pause` sleeps between polls and throws when the run is interrupted.
    func claimDownload(
        _ key: CacheKey, url: String, maxBytes: Int,
        inspect: @escaping @Sendable ([UInt8]) async throws -> ImageInfo,
        pause: (Double) async throws -> Void
    ) async throws -> DownloadClaim {
        for index in leaseCandidates(for: key.hash) {
            if let claim = try await claimDownload(
                key, in: index, url: url, maxBytes: maxBytes, inspect: inspect, pause: pause)
            {
                return claim
            }
        }
        return .unclaimed
    }

    /// The claim in backend `index`; nil if it turns out to hold no leases.
    private func claimDownload(
        _ key: CacheKey, in index: Int, url: String, maxBytes: Int,
        inspect: @escaping @Sendable ([UInt8]) async throws -> ImageInfo,
        pause: (Double) async throws -> Void
    ) async throws -> DownloadClaim? {
        let name = key.hash
        guard let storage = backends[index] as? any RemoteLeasing else { return nil }
        let duration = storage.configured.leaseDuration
        // When the holder's lease runs out unless renewed: as the store last
        // reported it, moved only forward, and not by a lease at its end (a
        // store that keeps one there is waited for once, not forever).
        var expiry = clock.monotonicNow() + duration
        let token = UniqueName.make()
        var delay = 0.05
        var waited = false
        var lastTry = false
        var retried = false
        while true {
            guard let ticket = health.ticket(index) else { return .unclaimed }
            let answer: LeaseAnswer
            do {
                answer = try await storage.acquireLease(name, token: token, duration: duration)
                health.record(index, ticket, .answered)
            } catch let error as ImageCoreError {
                fail(index, storage, error, ticket)
                // Once more, same token: the lease may be ours with its answer lost.
                guard error.isPassingStoreFailure, error.kind != .interrupted, !retried else { return .unclaimed }
                retried = true
                continue
            }
            if case .held(let remaining?) = answer, remaining > 0, clock.monotonicNow() + remaining > expiry {
                // The holder's lease, renewed while it downloads, sets how long to wait.
                expiry = clock.monotonicNow() + remaining
                lastTry = false
            }
            if case .unsupported(let reason) = answer {
                noteLeaseless(index, storage, reason)
                return nil
            }
            if answer == .acquired {
                let lease = RemoteLease(name: name, token: token, index: index, storage: storage, clock: clock)
                // The entry may have arrived between the lookup that missed and the lease.
                let again = await lookup(
                    key, in: index, url: url, maxBytes: maxBytes, countsMiss: false, inspect: inspect)
                if case .hit(let hit) = again {
                    end(lease)
                    return .uploaded(hit)
                }
                leases.withLock { $0[name] = lease }
                lease.startRenewing(every: duration)
                events.emit("took the download lease in \(storage.configured): \(url)")
                return .leased(lease)
            }
            if !waited {
                events.emit("another machine is downloading, waiting for its entry in \(storage.configured): \(url)")
                waited = true
            }
            let now = clock.monotonicNow()
            let deadline = expiry + Self.leaseMargin
            if now >= deadline {
                // The wait ran out: once more for the lease (a dead holder's
                // has expired by now; a slow poll must not skip taking it),
                // then download without one.
                guard !lastTry else {
                    events.emit("gave up waiting for another machine's download: \(url)")
                    return .unclaimed
                }
                lastTry = true
                continue
            }
            try await pause(min(delay, deadline - now))
            switch await lookup(key, in: index, url: url, maxBytes: maxBytes, countsMiss: false, inspect: inspect) {
            case .hit(let hit): return .uploaded(hit)
            // A poll that failed and left the store in use costs that poll only: the lease's deadline still bounds the wait.
            case .failed where hasFailed(index): return .unclaimed
            case .failed, .miss: delay = min(delay * 1.5, Self.longestPoll)
            }
        }
    }

    /// Ends a lease after its download: if an upload to the lease's store
    /// was started, that upload releases it once done; otherwise now.
    func end(_ lease: RemoteLease) {
        guard !lease.isUploading else { return }
        track { [self] in await release(lease) }
    }

    /// Frees the lease in its store (compare-and-delete: only if still ours);
    /// `evenIfOff`: also from a store off for the run (its refusal of this
    /// holder's upload turned it off).
    func release(_ lease: RemoteLease, evenIfOff: Bool = false) async {
        leases.withLock { if $0[lease.name] === lease { $0[lease.name] = nil } }
        guard lease.markReleased() else { return }
        guard let ticket = health.ticket(lease.index) else {
            // A store turned off by refusing this holder's upload (Redis OOM
            // or NOPERM, nginx's 413) still answers: left, its lease would
            // keep the other machines waiting for an entry that is not coming.
            if evenIfOff { try? await lease.storage.releaseLease(lease.name, token: lease.token) }
            return
        }
        do {
            try await lease.storage.releaseLease(lease.name, token: lease.token)
            health.record(lease.index, ticket, .answered)
        } catch let error as ImageCoreError {
            fail(lease.index, lease.storage, error, ticket)
        } catch {}
    }

    /// The writable, unfailed backends for `name` that may hold leases, in
    /// the configured order. Not one whose last request timed out (or
    /// answered 5xx): a lease request gets at least 10 s and is sent twice,
    /// so a store that stalls would hold the download 20 s more for an
    /// optimisation, where its lookup cost only its `|timeout=`.
    private func leaseCandidates(for name: String) -> [Int] {
        backendIndices(for: name).filter { index in
            !backends[index].configured.readOnly && !hasFailed(index) && !health.isFailing(index)
                && backends[index] is any RemoteLeasing
                && !leaseless.withLock { $0.contains(index) }
        }
    }

    /// Remembers a store that turned out to hold no leases, saying so once.
    private func noteLeaseless(_ index: Int, _ storage: any RemoteStorage, _ reason: String) {
        guard leaseless.withLock({ $0.insert(index).inserted }) else { return }
        events.emit("remote storage \(storage.configured) holds no download leases: \(reason)")
    }
}
