@testable import ImageCore

/// What one input to the on-disk record parsers exercises: the cache entry
/// record (as found, and again sealed with a valid check line so the fuzzer
/// gets past the checksum to the field parser), the failed-URL record and a
/// statistics shard, and the dates `imgcache stat` prints from them.
public enum CacheRecordInputs {
    /// Parses `bytes` as each kind of record. Traps if a record the parser
    /// accepts does not survive being written and read back: whatever
    /// `CacheEntry` can hold, its own writer must produce a readable record.
    public static func exercise(_ bytes: [UInt8]) {
        _ = CacheEntry(parsing: bytes)
        let sealed = bytes + Array("check \(CacheEntry.seal(bytes))\n".utf8)
        if let entry = CacheEntry(parsing: sealed) {
            // The writer drops newline characters the parser tolerates, so
            // compare from the first rewrite on.
            guard let rewritten = CacheEntry(parsing: entry.serialized()) else {
                preconditionFailure("a parsed record does not survive serialized()")
            }
            precondition(CacheEntry(parsing: rewritten.serialized())?.serialized() == rewritten.serialized(),
                         "serialized() is not stable")
        }
        if let entry = CacheEntry(parsing: sealed) ?? CacheEntry(parsing: bytes) {
            // What `imgcache stat` prints of an entry.
            for time in [entry.storedAt, entry.lastUsed] + (entry.expires.map { [$0] } ?? []) { _ = HTTPDate.iso8601(time) }
        }
        if let failure = FailedURLRegistry.parse(bytes) {
            _ = HTTPDate.iso8601(failure.failedAt)
            _ = HTTPDate.iso8601(failure.expiresAt)
        }
        _ = Statistics.parse(bytes)
    }
}
