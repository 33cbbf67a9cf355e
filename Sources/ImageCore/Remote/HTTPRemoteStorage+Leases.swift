/// Download leases in an HTTP store, for servers that make collections
/// with MKCOL (Apache mod_dav; nginx with MKCOL in `dav_methods`). The lease
/// for a key is the collection `<key hash>.lease.d/`, its holder the object
/// `holder` in it (`HTTPLeaseObject`):
///
/// - taken by `MKCOL`, which both servers make a `mkdir`: of the machines
///   racing for it exactly one gets 201 (50 racing, 50 times: one each
///   time), the others 405 (403 on Apache when the `mkdir` itself found it
///   made). The winner then writes itself in as the holder. A conditional
///   PUT is no such primitive: Apache checks `If-None-Match: *` apart from
///   the write, and 50 racing PUTs had 2 to 10 winners in 6 of 20 rounds;
///   nor is LOCK (up to 25 of 50 got an exclusive lock on one new path);
/// - taken over once run out (its holder died, or never wrote itself in)
///   by making the marker collection `ended-<dead token>.<round>/` in it,
///   so of the waiters that saw it run out exactly one wins and writes
///   itself in as the holder; a round's winner that died before it wrote
///   itself in is taken over in the next round a duration later
///   (`LeaseSightings.takeoverRound`);
/// - renewed by writing the holder again, and released by deleting the
///   collection, each only after reading the holder back and finding our token.
///
/// Its name is not the `<key hash>.lease` object that earlier versions
/// took by conditional PUT: machines of both kinds sharing a store do not
/// see each other's leases (each kind downloads a URL once), and neither
/// mistakes the other's object for a damaged lease.
///
/// Lease requests get their own patience (`withLeasePatience`): Apache
/// holds requests racing others on its DAV lock database, and six
/// machines starting together kept one waiting past the 1 s default.
///
/// Whether the server makes collections one at a time is probed once per
/// run, by the first request for a lease: a MKCOL of a new collection must
/// make it, and a second one must find it made. Where not (nginx without
/// MKCOL in `dav_methods` answers 405), the store takes no leases
/// (`LeaseAnswer.unsupported`) and the next store that can hold them does.
extension HTTPRemoteStorage: RemoteLeasing {
    func acquireLease(_ name: String, token: String, duration: Double) async throws -> LeaseAnswer {
        if let reason = try await leaseRefusal() { return .unsupported(reason) }
        // Twice at most: a lease found without its holder may have been
        // freed meanwhile (the collection deleted), so it is asked for again.
        for attempt in 0..<2 {
            if try await makeCollection(leaseName(name)) {
                try await writeHolder(name, token: token, duration: duration, taking: true)
                return .acquired
            }
            guard let held = try await readLease(name) else {
                if attempt == 0 { continue }
                // Made by a machine that has not written itself in yet (or died
                // first, or whose answer was lost: an HTTP store cannot tell
                // whose it is), so waited for as another's, for a duration.
                return try await judge(name, token: token, duration: duration, holder: nil)
            }
            // Ours: an earlier request for it was written, its answer lost (`RemoteCache+Leases.swift`).
            if held.lease?.token == token { return .acquired }
            return try await judge(name, token: token, duration: duration, holder: held.lease)
        }
        return .held(remaining: nil)
    }

    /// The answer for a lease another machine holds as `holder` (nil: not
    /// written in yet; or damaged): held while it has time left, judged on
    /// this machine's clock too (`LeaseSightings`: a lease not renewed for
    /// its duration has run out), else taken over.
    private func judge(
        _ name: String, token: String, duration: Double, holder: HTTPLeaseObject??
    ) async throws -> LeaseAnswer {
        let now = clock.monotonicNow()
        let left: Double
        let dead: String
        switch holder {
        case .some(.some(let lease)):
            left = leaseSightings.timeLeft(name, lease, wallNow: clock.wallNow(), now: now)
            dead = lease.token
        case .some(.none):
            // Damaged or hostile: nobody's lease, taken over at once.
            left = 0
            dead = "damaged"
        case .none:
            left = duration - leaseSightings.age(name, token: "", expiry: -1, now: now)
            dead = "unwritten"
        }
        if left > 0 { return .held(remaining: left) }
        let round = leaseSightings.takeoverRound(name, token: dead, duration: duration, now: now)
        guard try await makeCollection("\(leaseName(name))ended-\(Self.pathSafe(dead)).\(round)/") else {
            // Another waiter won this round and is writing itself in.
            return .held(remaining: nil)
        }
        leaseSightings.forget(name)
        try await writeHolder(name, token: token, duration: duration, taking: false)
        return .acquired
    }

    /// Writes this machine in as the lease's holder. If a lease just made
    /// cannot be written in, it is deleted again rather than left for the
    /// others to wait out (as another's whose holder is not written yet).
    private func writeHolder(_ name: String, token: String, duration: Double, taking: Bool) async throws {
        let lease = HTTPLeaseObject(token: token, duration: duration, now: clock.wallNow())
        do {
            _ = try await write(holderName(name), lease.encoded, patient: true)
        } catch {
            if taking { _ = try? await deleteLease(name) }
            throw error
        }
    }

    func renewLease(_ name: String, token: String, duration: Double) async throws -> Bool {
        guard let held = try await readLease(name), held.lease?.token == token else { return false }
        let renewed = HTTPLeaseObject(token: token, duration: duration, now: clock.wallNow())
        return try await write(holderName(name), renewed.encoded, conditions: Self.matching(held.etag)) != 412
    }

    func releaseLease(_ name: String, token: String) async throws {
        guard let held = try await readLease(name), held.lease?.token == token else { return }
        _ = try await deleteLease(name)
    }

    /// Deletes the lease collection for `name`, markers and all; false if there was none.
    @discardableResult
    func deleteLease(_ name: String) async throws -> Bool {
        try await send(request("DELETE", leaseName(name)), answers: [404]).status != 404
    }

    /// The holder of the lease for key hash `name` and its ETag; nil if
    /// there is none (no lease, or not written in yet), a nil lease if the
    /// object is not one. 403 is gone too: Apache's answer to a GET racing
    /// the DELETE that frees the lease, its file gone between the `stat` and
    /// the `open` ("(2)No such file or directory: AH00132: file permissions
    /// deny server access"): 128 of 27 000 GETs racing PUT and DELETE cycles.
    func readLease(_ name: String) async throws -> (lease: HTTPLeaseObject?, etag: String?)? {
        var read = request("GET", holderName(name))
        read.maxBytes = 4096
        guard case (_, let response?) = try await send(read, answers: [403, 404]) else { return nil }
        return (HTTPLeaseObject(parsing: response.body ?? []), response.headers[.etag])
    }

    private func leaseName(_ name: String) -> String { "\(name).lease.d/" }
    private func holderName(_ name: String) -> String { "\(leaseName(name))holder" }

    /// A token as a path segment: a hostile holder's cannot leave the lease's collection.
    private static func pathSafe(_ token: String) -> String {
        let safe = token.unicodeScalars.prefix(64).map {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                ? Character($0) : "_"
        }
        return String(safe)
    }

    /// `If-Match` for a strong ETag; nothing for a weak or missing one (the
    /// token just read back is then the only check).
    private static func matching(_ etag: String?) -> [HTTPHeader] {
        guard let etag, etag.hasPrefix("\"") else { return [] }
        return [HTTPHeader(name: "If-Match", value: etag)]
    }

    /// Why the store can hold no leases, nil if it can (probed once): a
    /// collection of this run's own must be made by one MKCOL and refused
    /// to a second, then deleted.
    private func leaseRefusal() async throws -> String? {
        try await leaseProbe.refusal { [self] in
            let probe = "lease-probe-\(UniqueName.make())/"
            do {
                guard try await makeCollection(probe) else { return "it does not make collections (MKCOL)" }
                let again = try await makeCollection(probe)
                let found = (try? await send(request("DELETE", probe), answers: [404]).status != 404) ?? true
                guard !again else { return "it made one collection twice (MKCOL)" }
                return found ? nil : "it cannot delete the probe's collection"
            } catch let error as ImageCoreError where error.httpStatus != nil {
                // A refused MKCOL is no failure of the store's: its lookups
                // and uploads may work.
                return "it refused the probe's MKCOL (\(error.message))"
            }
        }
    }
}
