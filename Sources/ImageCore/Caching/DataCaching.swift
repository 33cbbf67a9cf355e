/// An entry read back from the disk cache, its bytes verified against the
/// checksum in its record.
public struct CachedData: Sendable {
    /// The entry's metadata record.
    public var entry: CacheEntry
    /// The original bytes, exactly as downloaded.
    public var bytes: [UInt8]
    /// Absolute path of the file holding the bytes.
    public var path: String
}

/// The data-caching seam: whole, verified entries by key.
///
/// Thread safety: implementations may be called from any thread, and several
/// processes may use the same storage at once; every write is atomic (a
/// reader sees a whole entry or none) and every read is verified.
public protocol DataCaching: Sendable {
    /// The entry for `key` if it is present and whole; nil on a miss. A
    /// damaged entry is removed and reported as a miss.
    func lookup(_ key: CacheKey) throws -> CachedData?

    /// Stores `bytes` (also found in the file at `temporaryPath`, which is
    /// consumed) under `key`, replacing any older entry.
    func store(_ bytes: [UInt8], temporaryPath: String?, key: CacheKey, url: String, info: ImageInfo,
               response: StoredResponse) throws -> CachedData

    /// Replaces the HTTP facts of a stored entry (after a 304), keeping its bytes.
    func update(_ entry: CacheEntry, key: CacheKey, response: StoredResponse) throws -> CacheEntry

    /// Removes the entry for `key`; returns whether there was one.
    @discardableResult
    func remove(_ key: CacheKey) throws -> Bool
}
