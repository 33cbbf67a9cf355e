/// Download leases in an S3 bucket, which has held them atomically since
/// 2024 (AWS; SeaweedFS, MinIO and R2 too). The lease for a key is the
/// object `<key hash>.lease` (`HTTPLeaseObject`, the body an HTTP store's
/// lease has):
///
/// - taken by `PUT` with `If-None-Match: *`: 2xx is ours, 412 is another's
///   (ours if it carries our token: an earlier try's answer was lost),
///   409 is a conditional write racing ours (AWS), tried again;
/// - taken over once run out (its holder died) by a `PUT` with `If-Match`
///   its ETag, so of the waiters that saw it run out exactly one gets it;
/// - renewed by a `PUT` and released by a `DELETE`, each with `If-Match` the
///   ETag of the lease just read back and found to carry our token; where
///   the policy grants no `s3:DeleteObject` (the DELETE answered
///   `AccessDenied`), released by a `PUT` of it run out instead.
///
/// So `s3:GetObject` and `s3:PutObject` are all a lease needs: a lease
/// read back after it was freed is a 403 `AccessDenied` without
/// `s3:ListBucket`, which `send` takes as missing.
///
/// Lease PUTs get their own patience (`withLeasePatience`): a server may
/// hold racing conditional writes for a second or two. Whether the server
/// honours `If-None-Match: *` is probed once per run, by the first request
/// for a lease; one that ignores it holds no leases (`LeaseAnswer.unsupported`).
extension S3RemoteStorage: RemoteLeasing {
    /// Most tries of a conditional PUT that another raced (409).
    static let racedWriteTries = 4

    func acquireLease(_ name: String, token: String, duration: Double) async throws -> LeaseAnswer {
        if let reason = try await leaseRefusal() { return .unsupported(reason) }
        let lease = HTTPLeaseObject(token: token, duration: duration, now: clock.wallNow()).encoded
        for attempt in 1...Self.racedWriteTries {
            let status = try await write(
                leaseName(name), lease, conditions: [LeaseProbe.ifNoneMatchAny], patient: true)
            switch status {
            case 409:
                try await clock.sleep(Double(attempt) * 0.05)
                continue
            case 412:
                guard let held = try await readLease(name) else { continue }  // released meanwhile
                // Ours: an earlier request for it was written, its answer lost (`RemoteCache+Leases.swift`).
                if held.lease?.token == token { return .acquired }
                // Judged on this machine's clock too (`LeaseSightings`): a lease not renewed for its duration has run out.
                let remaining =
                    held.lease.map {
                        leaseSightings.timeLeft(name, $0, wallNow: clock.wallNow(), now: clock.monotonicNow())
                    } ?? 0
                if remaining > 0 { return .held(remaining: remaining) }
                leaseSightings.forget(name)
                guard let etag = held.etag else { return .held(remaining: nil) }
                let takeover = try await write(
                    leaseName(name), lease, conditions: [HTTPHeader(name: "If-Match", value: etag)], patient: true)
                // 412 or 409: another waiter took it over first.
                return (200..<300).contains(takeover) ? .acquired : .held(remaining: nil)
            default:
                return .acquired
            }
        }
        return .held(remaining: nil)
    }

    func renewLease(_ name: String, token: String, duration: Double) async throws -> Bool {
        guard let held = try await readLease(name), held.lease?.token == token, let etag = held.etag else {
            return false
        }
        let renewed = HTTPLeaseObject(token: token, duration: duration, now: clock.wallNow()).encoded
        let status = try await write(
            leaseName(name), renewed, conditions: [HTTPHeader(name: "If-Match", value: etag)], patient: true)
        return (200..<300).contains(status)
    }

    func releaseLease(_ name: String, token: String) async throws {
        guard let held = try await readLease(name), let lease = held.lease, lease.token == token,
            let etag = held.etag
        else { return }
        let condition = HTTPHeader(name: "If-Match", value: etag)
        if !deletesRefused.withLock({ $0 }) {
            var release = request("DELETE", leaseName(name))
            release.headers.append(condition)
            do {
                _ = try await send(release, absent: true, answers: [412])
                return
            } catch let error as ImageCoreError where Self.isAccessDenied(error) {
                deletesRefused.withLock { $0 = true }
            }
        }
        // No `s3:DeleteObject`: the lease is written back run out (a whole
        // duration ago, so that no clock in the fleet within a second of
        // this one sees it live), and the next machine to need it takes it
        // over at once (`If-Match`) rather than after its time. The object
        // stays for a lifecycle rule.
        let runOut = HTTPLeaseObject(
            token: token, duration: lease.duration, now: clock.wallNow() - 2 * lease.duration)
        _ = try await write(leaseName(name), runOut.encoded, conditions: [condition], patient: true)
    }

    /// The lease object for key hash `name` and its ETag; nil if there is
    /// none, a nil lease if the object is not one.
    private func readLease(_ name: String) async throws -> (lease: HTTPLeaseObject?, etag: String?)? {
        var read = request("GET", leaseName(name))
        read.maxBytes = 4096
        guard case (_, let response?) = try await send(read, absent: true) else { return nil }
        return (HTTPLeaseObject(parsing: response.body ?? []), response.headers[.etag])
    }

    private func leaseName(_ name: String) -> String { "\(name).lease" }

    /// Why the store can hold no leases, nil if it can (probed once, with
    /// lease patience: a server busy with racing conditional writes may
    /// hold the probe's too).
    private func leaseRefusal() async throws -> String? {
        try await leaseProbe.refusal(
            write: { [self] name, body, conditions in
                try await write(name, body, conditions: conditions, patient: true)
            },
            remove: { [self] name in try await delete(name) })
    }
}
