import Synchronization

/// Whether a store honours `If-None-Match: *` on PUT, which its download
/// leases need (Apache mod_dav and S3 do; nginx 1.22's WebDAV module does
/// not). Asked once per run, by the first request for a lease, which the
/// others await: the probe object is written, then written over with the
/// condition, which a server that honours it refuses (412; 409 when it
/// raced another machine's probe, as S3 may answer). The object stays:
/// every machine writes the same bytes to it.
final class ConditionalPutProbe: Sendable {
    /// PUTs the probe object's `body` with `conditions`; returns the status.
    typealias Write = @Sendable (_ body: [UInt8], _ conditions: [HTTPHeader]) async throws -> Int

    static let ifNoneMatchAny = HTTPHeader(name: "If-None-Match", value: "*")
    /// The probe object's name, beside the entries.
    static let objectName = "lease-probe"

    private let outcome = Mutex<Task<String?, any Error>?>(nil)

    /// Why the store can hold no leases, nil if it can: the probe's outcome,
    /// probing through `write` on the first call.
    func refusal(write: @escaping Write) async throws -> String? {
        let probe = outcome.withLock { outcome in
            if let outcome { return outcome }
            let task = Task { try await Self.probe(write) }
            outcome = task
            return task
        }
        return try await probe.value
    }

    private static func probe(_ write: Write) async throws -> String? {
        let body = Array("imgcache lease probe\n".utf8)
        do {
            _ = try await write(body, [])
            let status = try await write(body, [ifNoneMatchAny])
            return status == 412 || status == 409 ? nil : "it ignores If-None-Match: * on PUT"
        } catch let error as ImageCoreError where error.httpStatus != nil {
            // A refused write is no failure of the store's: its lookups may
            // work, and the first upload reports the refusal.
            return "it refused the probe's write (\(error.message))"
        }
    }
}
