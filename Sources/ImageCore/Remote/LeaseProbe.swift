import Synchronization

/// Whether a store can hold download leases, asked once per run by the
/// first request for a lease, which the others await: a failed probe says
/// nothing of the store (a timeout must not fail every lease request of the
/// run), so the next request probes again.
///
/// For S3 (`refusal(write:remove:)`): whether the store honours `If-None-Match: *` on
/// PUT (AWS, SeaweedFS, MinIO and R2 do). A probe object of this run's own
/// is written, then written over with the condition, which a server that
/// honours it refuses (412, or 409 as S3 may answer), then deleted, which
/// must find it. Its own, because machines that start together probe
/// together. An HTTP store probes MKCOL instead (`HTTPRemoteStorage+Leases.swift`).
final class LeaseProbe: Sendable {
    /// PUTs the object `name` with `body` and `conditions`; returns the status.
    typealias Write = @Sendable (_ name: String, _ body: [UInt8], _ conditions: [HTTPHeader]) async throws -> Int
    /// Deletes the object `name`; false if the store found none.
    typealias Remove = @Sendable (_ name: String) async throws -> Bool

    static let ifNoneMatchAny = HTTPHeader(name: "If-None-Match", value: "*")

    private let outcome = Mutex<Task<String?, any Error>?>(nil)

    /// Why the store can hold no leases, nil if it can: the outcome of
    /// `probe`, run on the first call.
    func refusal(probe: @escaping @Sendable () async throws -> String?) async throws -> String? {
        let outcome = self.outcome.withLock { outcome in
            if let outcome { return outcome }
            let task = Task { try await probe() }
            outcome = task
            return task
        }
        do {
            return try await outcome.value
        } catch {
            self.outcome.withLock { if $0 == outcome { $0 = nil } }
            throw error
        }
    }

    /// Why the store can hold no leases by conditional PUT, nil if it can,
    /// probing through `write` and `remove` on the first call.
    func refusal(write: @escaping Write, remove: @escaping Remove) async throws -> String? {
        try await refusal { try await Self.probe(write, remove) }
    }

    private static func probe(_ write: Write, _ remove: Remove) async throws -> String? {
        let name = "lease-probe-\(UniqueName.make())"
        let body = Array("imgcache lease probe\n".utf8)
        do {
            _ = try await write(name, body, [])
            let status = try await write(name, body, [ifNoneMatchAny])
            // Left behind if this fails: a lifecycle rule for lease objects
            // takes probes too (docs/FLEET.md).
            let found = (try? await remove(name)) ?? true
            guard status == 412 || status == 409 else { return "it ignores If-None-Match: * on PUT" }
            // A store that cannot find what it just wrote cannot show a lease to
            // the other machines (an S3 policy without s3:GetObject, whose GETs
            // are all 403 AccessDenied, taken for missing keys): each would wait
            // out every lease another took.
            return found ? nil : "it cannot read back the probe's object"
        } catch let error as ImageCoreError where error.httpStatus != nil {
            // A refused write is no failure of the store's: its lookups may
            // work, and the first upload reports the refusal.
            return "it refused the probe's write (\(error.message))"
        }
    }
}
