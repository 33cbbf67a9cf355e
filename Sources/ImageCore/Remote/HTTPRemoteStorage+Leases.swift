/// Download leases in an HTTP store, for servers that honour conditional
/// PUT (Apache mod_dav does; nginx 1.22's WebDAV module does not). The
/// lease for a key is the object `<key hash>.lease` (`HTTPLeaseObject`):
///
/// - taken by `PUT` with `If-None-Match: *`: 412 is another's (ours if it
///   carries our token: an earlier try's answer was lost); 2xx is ours
///   if reading it back finds our token, twice, `leaseSettle` apart
///   (Apache checks the precondition before writing, not atomically with
///   it, so PUTs racing within a millisecond or two can all succeed: the
///   last one written wins, and on a loaded machine it was written up to
///   8 ms after the first's read-back had found the first's token, so both
///   downloaded; a read-back that finds nothing is no lease: another
///   deleted it);
/// - taken over once run out (its holder died) by deleting it with
///   `If-Match` its ETag, so of the waiters that saw it run out only one
///   frees it, then taking it as above;
/// - renewed and released only after reading it back and finding our token,
///   with `If-Match` as well where the ETag is strong (Apache's is weak for
///   a second after a write, and a weak one never matches).
///
/// Lease and probe PUTs get their own patience (`withLeasePatience`), as an
/// S3 store's do: Apache holds a PUT on its DAV lock database, and six
/// machines starting together kept one waiting past the 1 s default.
///
/// Whether the server honours `If-None-Match: *` is probed once per run, by
/// the first request for a lease: a conditional PUT over an object that
/// exists must answer 412. Where it answers 2xx the store takes no leases
/// (`LeaseAnswer.unsupported`) and the next store that can hold them does.
extension HTTPRemoteStorage: RemoteLeasing {
    /// How long after a read-back that found our new lease it is read again
    /// before it is taken for ours: a racing PUT whose precondition passed
    /// before ours was written lands within it (six machines on 60 URLs,
    /// Apache on a loaded 2-CPU machine: up to 8 ms after the first read-back).
    /// A bound seen, not a guarantee: a PUT stalled longer still replaces a
    /// lease taken, and two machines download, as before. 20 ms, not more:
    /// every lease taken waits it (0.05 s slowed that fleet's median run 30 %).
    static let leaseSettle = 0.02

    func acquireLease(_ name: String, token: String, duration: Double) async throws -> LeaseAnswer {
        if let reason = try await leaseRefusal() { return .unsupported(reason) }
        let lease = HTTPLeaseObject(token: token, duration: duration, now: clock.wallNow())
        // Twice at most: once more after freeing a lease that ran out, or one freed meanwhile.
        for _ in 0..<2 {
            let status = try await write(
                leaseName(name), lease.encoded, conditions: [ConditionalPutProbe.ifNoneMatchAny], patient: true)
            if status != 412 {
                // Apache checks the precondition before writing, not with
                // it: PUTs that arrive together can all succeed, the last
                // rename winning. Reading the lease back finds the winner.
                // None found: another machine deleted ours after it was
                // written (a waiter freeing a run-out lease whose ETag was
                // weak, so its DELETE had no If-Match), and is taking the
                // lease itself: ours is not held, so try again.
                guard let written = try await readLease(name) else { continue }
                guard written.lease?.token == token else {
                    return .held(remaining: written.lease?.remaining(now: clock.wallNow()))
                }
                // A PUT that passed its precondition before ours was
                // written may still replace ours: once more, later.
                try await clock.sleep(Self.leaseSettle)
                guard let settled = try await readLease(name) else { continue }
                if settled.lease?.token == token { return .acquired }
                return .held(remaining: settled.lease?.remaining(now: clock.wallNow()))
            }
            guard let held = try await readLease(name) else { continue }
            // Ours: an earlier request for it was written, its answer lost (`RemoteCache+Leases.swift`).
            if held.lease?.token == token { return .acquired }
            // Judged on this machine's clock too (`LeaseSightings`): a lease not renewed for its duration has run out.
            let remaining =
                held.lease.map {
                    leaseSightings.timeLeft(name, $0, wallNow: clock.wallNow(), now: clock.monotonicNow())
                } ?? 0
            if remaining > 0 { return .held(remaining: remaining) }
            leaseSightings.forget(name)
            guard try await free(name, ifStill: held.etag) else {
                return .held(remaining: nil)  // another waiter took it over first
            }
        }
        return .held(remaining: nil)
    }

    /// Deletes the lease object for `name` if it is still the version with
    /// `etag` (any version, for a weak or missing ETag); false if it was replaced.
    func free(_ name: String, ifStill etag: String?) async throws -> Bool {
        var free = request("DELETE", leaseName(name))
        free.headers += Self.matching(etag)
        return try await send(free, answers: [404, 412]).status != 412
    }

    func renewLease(_ name: String, token: String, duration: Double) async throws -> Bool {
        guard let held = try await readLease(name), held.lease?.token == token else { return false }
        let renewed = HTTPLeaseObject(token: token, duration: duration, now: clock.wallNow())
        return try await write(leaseName(name), renewed.encoded, conditions: Self.matching(held.etag)) != 412
    }

    func releaseLease(_ name: String, token: String) async throws {
        guard let held = try await readLease(name), held.lease?.token == token else { return }
        _ = try await free(name, ifStill: held.etag)
    }

    /// The lease object for key hash `name` and its ETag; nil if there is
    /// none, a nil lease if the object is not one.
    func readLease(_ name: String) async throws -> (lease: HTTPLeaseObject?, etag: String?)? {
        var read = request("GET", leaseName(name))
        read.maxBytes = 4096
        guard case (_, let response?) = try await send(read, answers: [404]) else { return nil }
        return (HTTPLeaseObject(parsing: response.body ?? []), response.headers["etag"])
    }

    private func leaseName(_ name: String) -> String { "\(name).lease" }

    /// `If-Match` for a strong ETag; nothing for a weak or missing one (the
    /// token just read back is then the only check).
    private static func matching(_ etag: String?) -> [HTTPHeader] {
        guard let etag, etag.hasPrefix("\"") else { return [] }
        return [HTTPHeader(name: "If-Match", value: etag)]
    }

    /// Why the store can hold no leases, nil if it can (probed once).
    private func leaseRefusal() async throws -> String? {
        try await leaseProbe.refusal(
            write: { [self] name, body, conditions in
                try await write(name, body, conditions: conditions, patient: true)
            },
            remove: { [self] name in try await delete(name) })
    }
}
