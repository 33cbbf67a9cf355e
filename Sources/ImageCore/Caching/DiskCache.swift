/// Entries on disk, shared safely by any number of processes.
///
/// An entry is two files: the bytes, named by the key's hash and the bytes'
/// checksum, and a metadata record, named by the key's hash. A store renames
/// the bytes into place first and the record second; since the record names
/// the bytes by checksum, a crash between the two renames leaves the old
/// record pointing at the old bytes (or no record), never at wrong ones.
/// Last-used time is the record's modification time, set on each hit.
///
/// Thread safety: may be called from any thread, and several processes may
/// use the same directory at once; every write is atomic (a reader sees a
/// whole entry or none) and every read is verified.
public final class DiskCache: Sendable {
    /// Where the cache lives.
    public let directory: CacheDirectory
    private let statistics: Statistics
    private let events: EventLog

    /// A disk cache over `directory`, which must have been `prepare()`d.
    public init(directory: CacheDirectory, statistics: Statistics, events: EventLog = .silent) {
        self.directory = directory
        self.statistics = statistics
        self.events = events
    }

    /// The entry for `key` if it is present and whole; nil on a miss. A
    /// damaged entry is removed and reported as a miss.
    public func lookup(_ key: CacheKey) throws -> CachedData? {
        // A concurrent store may replace the bytes between our reading the
        // record and opening the file it names: read the record again once.
        for _ in 0..<2 {
            guard let entry = try readEntry(key.hash) else { return nil }
            let path = "\(directory.shard(key.hash))/\(entry.dataFileName)"
            guard let bytes = try POSIXFile.read(path) else { continue }
            guard bytes.count == entry.byteCount, Digest.xxh3Hex(bytes) == entry.checksum else {
                discardCorrupt(key.hash, entry: entry, why: "bytes do not match their checksum")
                return nil
            }
            let metadataPath = directory.metadataPath(key.hash)
            POSIXFile.touch(metadataPath)
            var used = entry
            used.lastUsed = WallClock.now()
            used.path = path
            return CachedData(entry: used, bytes: bytes, path: path)
        }
        return nil
    }

    /// The entry for `key` without its bytes, if `accepting` takes its
    /// record: `peek`, then the entry is marked used. The bytes are neither
    /// read nor verified, and `CachedData.bytes` is empty. Nil on a miss, a
    /// damaged record, a size mismatch (then `lookup` tells damage from
    /// absence) or a record not accepted (left unmarked).
    public func lookupWithoutBytes(_ key: CacheKey, accepting: (CacheEntry) -> Bool) -> CachedData? {
        guard var entry = Self.peek(directory: directory, key: key), let path = entry.path, accepting(entry) else {
            return nil
        }
        POSIXFile.touch(directory.metadataPath(key.hash))
        entry.lastUsed = WallClock.now()
        return CachedData(entry: entry, bytes: [], path: path)
    }

    /// Stores `bytes` (also found in the file at `temporaryPath`, which is
    /// consumed) under `key`, replacing any older entry. A caller that knows
    /// there is none (it looked under the key's download lock) passes
    /// `replacing: false`, which saves reading the old record.
    public func store(
        _ bytes: [UInt8], temporaryPath: String?, key: CacheKey, url: String, info: ImageInfo,
        response: StoredResponse, replacing: Bool = true
    ) throws -> CachedData {
        let checksum = Digest.xxh3Hex(bytes)
        let dataPath = directory.dataPath(key.hash, checksum: checksum, byteCount: bytes.count, format: info.format)
        let source = try temporaryPath ?? POSIXFile.writeTemporary(bytes, in: directory.temporary)
        try POSIXFile.rename(source, to: dataPath, creatingDirectory: true)

        let previous = replacing ? try? readEntry(key.hash) : nil
        let now = WallClock.now()
        var entry = CacheEntry(
            key: key.string, url: url, info: info, byteCount: bytes.count, checksum: checksum,
            storedAt: now, response: response, dataFileName: String(dataPath.split(separator: "/").last!))
        try POSIXFile.writeAtomically(
            entry.serialized(), to: directory.metadataPath(key.hash),
            temporaryDirectory: directory.shard(key.hash))
        entry.lastUsed = now
        entry.path = dataPath
        // New bytes: the old file and every variant made from it go.
        if let previous { removeFiles(of: previous, hash: key.hash, except: entry.dataFileName) }
        return CachedData(entry: entry, bytes: bytes, path: dataPath)
    }

    /// Rewrites the record of a revalidated entry (after a 304) with the
    /// updated response; the bytes stay. If a concurrent store replaced the
    /// entry first, nothing is written (and a replace racing this very
    /// write leaves a record whose bytes are gone: a miss, never wrong bytes).
    public func update(_ entry: CacheEntry, key: CacheKey, response: StoredResponse) throws -> CacheEntry {
        var updated = entry
        updated.response = response
        guard let current = try readEntry(key.hash), current.dataFileName == entry.dataFileName else { return updated }
        try POSIXFile.writeAtomically(
            updated.serialized(), to: directory.metadataPath(key.hash),
            temporaryDirectory: directory.shard(key.hash))
        updated.lastUsed = WallClock.now()
        return updated
    }

    /// Removes the entry for `key`; returns whether there was one.
    @discardableResult
    public func remove(_ key: CacheKey) throws -> Bool {
        let previous = try? readEntry(key.hash)
        // The record goes first: without it, nobody can find the bytes.
        let existed = try POSIXFile.remove(directory.metadataPath(key.hash))
        if let previous { removeFiles(of: previous, hash: key.hash) }
        return existed
    }

    /// The bytes of `entry`'s variant made by `transform`, verified; nil if
    /// it is not kept or is damaged.
    public func variant(of entry: CacheEntry, key: CacheKey, transform: String) -> [UInt8]? {
        guard let variant = entry.variant(transform),
            let bytes = try? POSIXFile.read("\(directory.shard(key.hash))/\(variant.fileName)")
        else { return nil }
        guard bytes.count == variant.byteCount, Digest.xxh3Hex(bytes) == variant.checksum else {
            statistics.add(.corruptEntries)
            events.emit("discarded corrupt variant \(transform) of \(entry.url)")
            return nil
        }
        return bytes
    }

    /// Keeps `bytes` as `entry`'s variant made by `transform`: the file is
    /// renamed into the shard, then the record is rewritten to name it. If
    /// the entry was replaced meanwhile, the variant is dropped.
    public func storeVariant(
        _ bytes: [UInt8], transform: String, fileExtension: String, of entry: CacheEntry,
        key: CacheKey
    ) throws {
        let shard = directory.shard(key.hash)
        let checksum = Digest.xxh3Hex(bytes)
        let fileName = "\(key.hash).v\(checksum.prefix(16)).\(bytes.count).\(fileExtension)"
        try POSIXFile.rename(try POSIXFile.writeTemporary(bytes, in: shard), to: "\(shard)/\(fileName)")
        guard var current = try readEntry(key.hash), current.dataFileName == entry.dataFileName else {
            _ = try? POSIXFile.remove("\(shard)/\(fileName)")
            return
        }
        current.variants.removeAll { $0.transform == transform }
        current.variants.append(
            CacheEntry.Variant(
                transform: transform, fileName: fileName, byteCount: bytes.count,
                checksum: checksum))
        try POSIXFile.writeAtomically(
            current.serialized(), to: directory.metadataPath(key.hash),
            temporaryDirectory: directory.shard(key.hash))
    }

    /// The record for `key` if its bytes are present at the recorded size,
    /// without reading them: fast enough for `stat` on one URL. Never
    /// modifies the cache (last use is not updated).
    public static func peek(directory: CacheDirectory, key: CacheKey) -> CacheEntry? {
        guard
            let (bytes, modified) = try? POSIXFile.readWithModificationTime(
                directory.metadataPath(key.hash), limit: 1 << 20),
            var entry = CacheEntry(parsing: bytes)
        else { return nil }
        let path = "\(directory.shard(key.hash))/\(entry.dataFileName)"
        guard POSIXFile.status(path)?.size == entry.byteCount else { return nil }
        entry.lastUsed = modified
        entry.path = path
        return entry
    }

    /// Reads and parses a metadata record; nil if absent or damaged.
    static func readRecord(_ path: String) throws -> CacheEntry? {
        guard let bytes = try POSIXFile.read(path, limit: 1 << 20) else { return nil }
        return CacheEntry(parsing: bytes)
    }

    private func readEntry(_ hash: String) throws -> CacheEntry? {
        let path = directory.metadataPath(hash)
        guard let (bytes, modified) = try POSIXFile.readWithModificationTime(path, limit: 1 << 20) else { return nil }
        guard var entry = CacheEntry(parsing: bytes) else {
            // A record an older imgcache wrote is a miss; the next store replaces it.
            if CacheEntry.isOtherVersion(bytes) { return nil }
            discardCorrupt(hash, entry: nil, why: "damaged metadata record")
            return nil
        }
        entry.lastUsed = modified
        return entry
    }

    private func discardCorrupt(_ hash: String, entry: CacheEntry?, why: String) {
        statistics.add(.corruptEntries)
        events.emit("discarded corrupt entry \(entry?.url ?? hash): \(why)")
        _ = try? POSIXFile.remove(directory.metadataPath(hash))
        if let entry { removeFiles(of: entry, hash: hash) }
    }

    /// Removes an entry's bytes and variants (not its record), except the
    /// file named `keep`: the new bytes when a store reused the old name.
    private func removeFiles(of entry: CacheEntry, hash: String, except keep: String? = nil) {
        let shard = directory.shard(hash)
        for name in [entry.dataFileName] + entry.variants.map(\.fileName) where name != keep {
            _ = try? POSIXFile.remove("\(shard)/\(name)")
        }
    }
}
