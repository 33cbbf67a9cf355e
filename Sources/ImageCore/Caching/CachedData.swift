/// An entry read back from the disk cache, its bytes verified against the
/// checksum in its record.
public struct CachedData: Sendable {
    /// The fields, in one box its copies share, copied on write as
    /// `CopyOnWriteBox` does: a `CachedData?` (the stale entry a load
    /// revalidates, nil on a cold URL) goes through the fetch's steps and
    /// their async frames, and as a record of some twenty fields, its bytes
    /// and its path, it was copied into them with `memcpy` 41 times a cold
    /// URL and copied and destroyed through value witnesses (9 to 10 k
    /// instructions a cold URL in all). Not `CopyOnWriteBox` itself: the
    /// metadata of a generic class is made at run time, at first use,
    /// 2.4 k instructions of a warm hit, which makes one.
    private final class Storage: @unchecked Sendable {
        // Why unchecked: changed only through `fields`' `_modify`, in a box
        // no other copy holds.
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private struct Fields: Sendable {
        var entry: CacheEntry
        var bytes: [UInt8]
        var path: String
    }

    private var storage: Storage

    private var fields: Fields {
        _read { yield storage.fields }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
            yield &storage.fields
        }
    }

    /// The entry's record, its bytes and where they are.
    public init(entry: CacheEntry, bytes: [UInt8], path: String) {
        storage = Storage(Fields(entry: entry, bytes: bytes, path: path))
    }

    /// The entry's metadata record.
    public var entry: CacheEntry {
        get { fields.entry }
        set { fields.entry = newValue }
    }
    /// The original bytes, exactly as downloaded.
    public var bytes: [UInt8] {
        get { fields.bytes }
        set { fields.bytes = newValue }
    }
    /// Absolute path of the file holding the bytes.
    public var path: String {
        get { fields.path }
        set { fields.path = newValue }
    }
}
