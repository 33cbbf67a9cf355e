/// The network step's run for one key (`FetchRun`), a step at a time: the
/// download lock, the local entry seen again under it, remote storage, the
/// fleet's lease, the origin, the body settled; then everything the run
/// holds given back, in one place and one order, however it ended.
extension NetworkFetch {
    /// Fetches, verifies and (unless asked not to) stores one image; with a
    /// `stale` entry, asks the origin with its validators first and keeps its
    /// bytes on 304 Not Modified.
    func fetch(_ request: ImageRequest, key: CacheKey, stale: CachedData?) async throws -> Fetched {
        var run = FetchRun(request, key: key, stale: stale)
        do {
            while true {
                if case .answered(let fetched) = run.stage {
                    release(run.held)
                    return fetched
                }
                try await advance(&run)
            }
        } catch {
            release(run.held)
            throw error
        }
    }

    /// Takes the run one step on from its stage.
    func advance(_ run: inout FetchRun) async throws {
        switch run.stage {
        case .started: try await takeDownloadLock(&run)
        case .claimed: lookAgain(&run)
        case .entrySeen(let local): try await askRemote(&run, local)
        case .remoteAsked(let local): try await takeLease(&run, local)
        case .leaseTaken(let local): try await download(&run, local)
        case .downloaded(let downloaded, let local): try await settle(&run, downloaded, local)
        case .settled(let settled): run.stage = .answered(settled.fetched)
        case .answered: break
        }
    }

    /// `.started` → `.claimed`: the key's download lock, taken or found not
    /// to be had; or the answer, when another process held it and stored
    /// the entry meanwhile.
    func takeDownloadLock(_ run: inout FetchRun) async throws {
        let claim = try await claim(run.request, key: run.key, stale: run.stale)
        if case .storedElsewhere(let cached) = claim {
            run.stage = .answered(storedElsewhere(cached, run.request))
            return
        }
        run.held.claim = claim
        run.stage = .claimed
    }

    /// `.claimed` → `.entrySeen`. Another process may have stored the entry
    /// between our lookup and our taking the lock (it downloads, stores,
    /// then unlocks): under the lock, look again. Found absent there, it
    /// stays absent until this run stores its own.
    func lookAgain(_ run: inout FetchRun) {
        var local = run.stale.map(FetchRun.LocalEntry.stale) ?? .unknown
        if case .held = run.held.claim, run.stale == nil, run.request.storesToDisk, !run.request.refresh {
            // An entry that cannot be read stays `.unknown`: the store replaces it.
            guard case .success(let cached) = Result(catching: { try disk.lookup(run.key) }) else {
                run.stage = .entrySeen(local)
                return
            }
            if let cached, CachePolicy.decide(cached.entry, for: run.request, now: clock.wallNow()) == .serve {
                run.stage = .answered(storedElsewhere(cached, run.request))
                return
            }
            if cached == nil { local = .absent }
        }
        run.stage = .entrySeen(local)
    }

    /// `.entrySeen` → `.remoteAsked`: remote storage's fresh entry is the
    /// answer; a stale one lends its validators.
    func askRemote(_ run: inout FetchRun, _ local: FetchRun.LocalEntry) async throws {
        var local = local
        if let remote, run.stale == nil || !run.request.refresh {
            switch try await lookUpRemote(remote, run.request, key: run.key) {
            case .served(let fetched):
                run.stage = .answered(fetched)
                return
            case .lendsValidators(let kept): local = .stale(kept)
            case .none: break
            }
        }
        run.stage = .remoteAsked(local)
    }

    /// `.remoteAsked` → `.leaseTaken`. Found nowhere: one machine of the
    /// fleet downloads, the others wait for its upload, which may be the answer.
    func takeLease(_ run: inout FetchRun, _ local: FetchRun.LocalEntry) async throws {
        var local = local
        if let remote, local.stale == nil, !run.request.refresh {
            let claim = try await claimRemoteDownload(remote, run.request, key: run.key)
            switch claim.outcome {
            case .served(let fetched)?:
                run.stage = .answered(fetched)
                return
            case .lendsValidators(let kept)?: local = .stale(kept)
            case nil: run.held.lease = claim.lease
            }
        }
        run.stage = .leaseTaken(local)
    }

    /// `.leaseTaken` → `.downloaded`: the origin's answer (conditional with
    /// a stale entry's validators, retried), its body held by the run.
    func download(_ run: inout FetchRun, _ local: FetchRun.LocalEntry) async throws {
        let downloaded = try await downloadRetrying(
            download(for: run.request, key: run.key, stale: local.stale), retries: run.request.retries)
        run.held.body = downloaded
        run.stage = .downloaded(downloaded, local)
    }

    /// `.downloaded` → `.settled`: a 304 merged into the stale entry, or
    /// the body verified and stored (renamed into the cache: no longer the
    /// run's to remove).
    func settle(
        _ run: inout FetchRun, _ downloaded: DownloadResponse, _ local: FetchRun.LocalEntry
    ) async throws {
        let settled = try await settledBody(downloaded, run.request, key: run.key, local: local)
        if case .renamedIntoCache = settled { run.held.bodyIsTheEntry = true }
        run.stage = .settled(settled)
    }

    /// Gives back what a run holds, in the one order that is safe: a body
    /// that is not the entry is removed while its lock still holds (no
    /// other process resumes into it meanwhile), then that lock goes; then
    /// the fleet's lease (an upload started for it releases it when done);
    /// then the key's download lock, last, so that a process waiting on it
    /// finds the entry stored.
    func release(_ held: FetchRun.Held) {
        if let body = held.body {
            if !held.bodyIsTheEntry { _ = try? POSIXFile.remove(body.bodyPath) }
            body.bodyLock?.release()
        }
        if let lease = held.lease { remote?.end(lease) }
        held.claim.release()
    }

    /// A download's body merged (304), or verified and stored.
    private func settledBody(
        _ downloaded: DownloadResponse, _ request: ImageRequest, key: CacheKey, local: FetchRun.LocalEntry
    ) async throws -> FetchRun.Settled {
        if downloaded.status == 304 {
            return .leftBehind(try merge(notModified: downloaded, into: local.stale, request, key: key))
        }
        guard let bytes = try downloaded.body ?? POSIXFile.read(downloaded.bodyPath) else {
            throw ImageCoreError(.cacheIO, "downloaded body vanished from \(downloaded.bodyPath)")
        }
        statistics.add(.downloads)
        statistics.add(.bytesDownloaded, bytes.count)
        let info = try await verify(bytes)
        var replacing = true
        if case .absent = local { replacing = false }
        let outcome = store.store(downloaded, bytes: bytes, info: info, request, key: key, replacing: replacing)
        let fetched = Fetched(
            info: info, bytes: bytes, stored: outcome.stored, source: .downloaded, notStored: outcome.failure)
        return outcome.stored == nil ? .leftBehind(fetched) : .renamedIntoCache(fetched)
    }

    /// Takes the key's download lock; when another process holds it, waits
    /// for that process's entry (only a plain download that would store).
    private func claim(_ request: ImageRequest, key: CacheKey, stale: CachedData?) async throws -> FetchRun.Claim {
        guard let locks = downloadLocks() else { return .notHeld }
        if locks.tryLock(key.hash) { return .held(locks, hash: key.hash) }
        guard stale == nil, request.storesToDisk else { return .notHeld }
        if let cached = try await waitForOtherProcess(locks, request, key: key) { return .storedElsewhere(cached) }
        return locks.tryLock(key.hash) ? .held(locks, hash: key.hash) : .notHeld
    }

    /// Waits while another process downloads this key; returns the entry it
    /// stored if that is as good as our own download would be, else nil.
    private func waitForOtherProcess(
        _ locks: DownloadLocks, _ request: ImageRequest,
        key: CacheKey
    ) async throws -> CachedData? {
        let deadline = clock.monotonicNow() + request.download.effectiveTimeout
        let waitStarted = clock.wallNow()
        while locks.isHeldElsewhere(key.hash) && clock.monotonicNow() < deadline {
            try await pause(0.02)
        }
        // An entry stored while we waited is as fresh as our own download
        // would be; one that cannot be read is downloaded again.
        guard let cached = try? disk.lookup(key) else { return nil }
        let decision = CachePolicy.decide(cached.entry, for: request, now: clock.wallNow())
        let fresh =
            decision == .serve
            || (decision != .mismatch && !request.refresh && cached.entry.storedAt >= waitStarted - 1)
        return fresh ? cached : nil
    }

    /// An entry another process downloaded while this one was about to.
    private func storedElsewhere(_ cached: CachedData, _ request: ImageRequest) -> Fetched {
        events.emit("downloaded by another process: \(request.url)")
        statistics.add(.diskHits)
        return Fetched(info: cached.entry.info, bytes: cached.bytes, stored: cached, source: .disk)
    }
}
