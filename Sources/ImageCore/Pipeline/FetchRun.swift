/// One key's run through the network step, as values: the stage it has
/// reached and what it holds that must be given back. `NetworkFetch` moves
/// it one step at a time and releases what it holds once, whichever stage
/// it ends in (`NetworkFetch+Run.swift`); each step and the release are
/// tested alone, from a run built at the stage they start from.
struct FetchRun {
    /// Where the run stands. Each step takes the run from one stage to the
    /// next, or to `.answered` when the answer turned up early.
    enum Stage {
        /// Nothing looked at or taken yet.
        case started
        /// The key's download lock taken, or found not to be had (`Held.claim`).
        case claimed
        /// What the cache holds for the key, as seen under the lock.
        case entrySeen(LocalEntry)
        /// Remote storage asked; a stale entry it had lends its validators.
        case remoteAsked(LocalEntry)
        /// The fleet's download lease taken if there was one to take
        /// (`Held.lease`): only the origin is left.
        case leaseTaken(LocalEntry)
        /// The origin's answer, its body on disk and locked (`Held.body`).
        case downloaded(DownloadResponse, LocalEntry)
        /// The body verified and renamed into the cache, or left to be removed.
        case settled(Settled)
        /// The answer; nothing is left but to give back what the run holds.
        case answered(Fetched)
    }

    /// What a run holds, each taken by one step and given back by
    /// `NetworkFetch.release` in the one order that is safe.
    struct Held {
        /// The key's cross-process download lock.
        var claim = Claim.notHeld
        /// The fleet's download lease (`RemoteCache+Leases.swift`).
        var lease: RemoteLease?
        /// The downloaded body and its lock.
        var body: DownloadResponse?
        /// Whether the body was renamed into the cache (it is the entry's
        /// bytes now, not to be removed).
        var bodyIsTheEntry = false
    }

    typealias Fetched = NetworkFetch.Fetched

    /// Where the run stands with the key's local entry.
    enum LocalEntry {
        /// Not looked at under the download lock: a store replaces whatever is there.
        case unknown
        /// Looked at under the download lock: none is stored, and none will
        /// be until this run stores its own.
        case absent
        /// A stale entry (from the lookup or remote storage): its validators
        /// make the origin's request conditional.
        case stale(CachedData)

        var stale: CachedData? {
            if case .stale(let cached) = self { cached } else { nil }
        }
    }

    /// The key's cross-process download lock, as the run found it.
    enum Claim {
        /// Held by this process until `release()`.
        case held(DownloadLocks, hash: String)
        /// Not held: no lock file (a read-only cache), a conditional or
        /// unstored download that does not wait, or another process that kept
        /// it past the wait.
        case notHeld
        /// Another process downloaded and stored the entry while this one waited.
        case storedElsewhere(CachedData)

        func release() {
            if case .held(let locks, let hash) = self { locks.unlock(hash) }
        }
    }

    /// How a download's body ended.
    enum Settled {
        /// Renamed into the cache as the entry's bytes.
        case renamedIntoCache(Fetched)
        /// Left where it was downloaded (a 304, `--no-store`): to be removed.
        case leftBehind(Fetched)

        var fetched: Fetched {
            switch self {
            case .renamedIntoCache(let fetched), .leftBehind(let fetched): fetched
            }
        }
    }

    let request: ImageRequest
    let key: CacheKey
    /// The lookup's stale entry, if any.
    let stale: CachedData?
    var stage = Stage.started
    var held = Held()

    init(_ request: ImageRequest, key: CacheKey, stale: CachedData?) {
        self.request = request
        self.key = key
        self.stale = stale
    }
}
