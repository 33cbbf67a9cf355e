/// The lease seam: a remote storage that can hold short-lived, exclusive
/// leases, so that of all the machines about to download a URL found
/// nowhere, one does and the others wait for its upload (groupcache's and
/// nginx `proxy_cache_lock`'s single flight, across a fleet).
///
/// A lease is a hint: it saves the origin requests, it never decides what
/// is served (every entry is verified as always), and a store that fails
/// while leasing is skipped like one that fails a lookup.
///
/// Thread safety: as for `RemoteStorage`.
protocol RemoteLeasing: RemoteStorage {
    /// Takes the lease `name` for `duration` seconds, marked with `token`,
    /// if nobody holds it (`.unsupported` if this store cannot hold leases
    /// after all: an HTTP server that makes no collections, an S3 one that
    /// ignores conditional PUT).
    func acquireLease(_ name: String, token: String, duration: Double) async throws -> LeaseAnswer
    /// Extends the lease to `duration` seconds from now if `token` still
    /// holds it; false if it expired or another holds it.
    func renewLease(_ name: String, token: String, duration: Double) async throws -> Bool
    /// Gives the lease up if `token` still holds it.
    func releaseLease(_ name: String, token: String) async throws
}

/// What a store answered to a request for a lease.
enum LeaseAnswer: Sendable, Equatable {
    /// The lease is the caller's.
    case acquired
    /// Another holds it, for `remaining` seconds more unless renewed (nil: unknown).
    case held(remaining: Double?)
    /// The store holds no leases in this run, for the reason given ("it
    /// ignores …"): the next one that can is asked.
    case unsupported(String)
}
