/// How entries sit on disk: one implementation per `RecordPlacement`.
/// `DiskCache` verifies, counts and logs; a layout only reads, commits and
/// removes files, each step atomic so that other processes see an entry
/// whole or not at all.
protocol EntryLayout: Sendable {
    /// The entry of `hash`: its record (with `lastUsed` and `path` set)
    /// once its bytes are found at the recorded size, and the bytes, not yet
    /// verified, if `withBytes`.
    func read(_ hash: String, withBytes: Bool) throws -> EntryReading

    /// The name the bytes of a new entry get in its shard.
    func dataFileName(_ hash: String, checksum: String, byteCount: Int, format: ImageFormat) -> String

    /// Makes `entry` the entry of `hash`, its bytes being the file at
    /// `source` (consumed), in one atomic step that readers see whole.
    func commit(_ entry: CacheEntry, bytesAt source: String, hash: String) throws

    /// Applies `change` to the record of `hash` if its bytes still have
    /// `checksum`; false if the entry is gone or was replaced.
    func rewriteRecord(
        _ hash: String, ifChecksum checksum: String, _ change: (inout CacheEntry) -> Void
    ) throws
        -> Bool

    /// Marks the entry used now (its file's modification time).
    func markUsed(_ hash: String)

    /// Removes what makes the entry reachable; returns whether it existed.
    /// Its other files (the bytes of `.files`, variants) are the caller's.
    func removeRecord(_ hash: String) throws -> Bool
}

/// What reading an entry found.
enum EntryReading {
    /// No entry.
    case absent
    /// A whole record an earlier imgcache wrote: a miss, which the next store replaces.
    case otherVersion
    /// A damaged record (nil), or a record whose bytes are not at its size.
    case damaged(CacheEntry?)
    /// The entry, and its bytes if asked for.
    case found(CacheEntry, bytes: [UInt8]?)
}
