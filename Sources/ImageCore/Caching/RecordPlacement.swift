/// Where a cache directory keeps its entries' records, decided once for the
/// directory and kept as an extended attribute of its last shard
/// (`entries/f`), which every process reads when it opens the cache: the
/// one system call that also tells a prepared cache from a new one.
public enum RecordPlacement: String, Sendable, Equatable {
    /// Each entry is one file, `entries/a/<hash>`, holding the bytes, with
    /// the record in its extended attribute `user.imgcache.entry`: one inode
    /// per entry, stored by one rename and read by one `open`.
    case attributes
    /// Each entry is two files, the bytes and a `<hash>.meta` record: for
    /// file systems without `user.*` attributes, and caches an earlier
    /// version made on one.
    case files

    /// The attribute of `entries/f` that says which.
    static let markerName = "user.imgcache.layout"
    /// The attribute of an entry's file that holds its record.
    static let recordName = "user.imgcache.entry"

    /// What the marker of a shard directory says.
    enum Marking {
        /// The directory is marked.
        case marked(RecordPlacement)
        /// The directory exists, unmarked: made by an earlier version.
        case unmarked
        /// The file system keeps no `user.*` attributes.
        case unsupported
        /// No such directory: the cache is not prepared.
        case missing
    }

    /// Reads the marker of `shard`.
    static func marking(of shard: String) -> Marking {
        switch ExtendedAttribute.read(markerName, path: shard) {
        case .value(let bytes): .marked(RecordPlacement(rawValue: String(decoding: bytes, as: UTF8.self)) ?? .files)
        case .absent: .unmarked
        case .unsupported: .unsupported
        // Another error (a directory this user cannot search): `prepare()`
        // then tries to make the tree and reports the system's cause.
        case .missingFile, .failed: .missing
        }
    }

    /// Marks `shard` with `placement`; returns what the cache then uses:
    /// `.files` if the file system (or a read-only cache) refuses the mark.
    static func mark(_ shard: String, with placement: RecordPlacement) -> RecordPlacement {
        do {
            try ExtendedAttribute.write(markerName, Array(placement.rawValue.utf8), path: shard)
            return placement
        } catch {
            return .files
        }
    }
}
