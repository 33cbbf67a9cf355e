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
