/// Entries on disk, shared safely by any number of processes.
///
/// Where an entry's record lives is the directory's `RecordPlacement`: in
/// an extended attribute of the file holding its bytes (one file per entry,
/// `AttributeEntryLayout`), or in a file of its own beside them
/// (`RecordFileEntryLayout`). Either way an entry is committed by a rename,
/// its bytes are checked against the record's checksum whenever they are
/// served, and its last use is a file's modification time, set on each hit.
///
/// Thread safety: may be called from any thread, and several processes may
/// use the same directory at once; every write is atomic (a reader sees a
/// whole entry or none) and every read is verified.
public final class DiskCache: Sendable {
    /// Where the cache lives.
    public let directory: CacheDirectory
    /// Where its records live.
    public let placement: RecordPlacement
    private let layout: any EntryLayout
    /// Whether lookups may write: record last use, remove a damaged entry.
    /// Off for a cache that is only read (`fetch --no-store`).
    private let writes: Bool
    private let statistics: Statistics
    private let events: EventLog
    /// The keys stored by this process, when it made the directory empty
    /// (`CacheDirectory.Prepared.madeEmpty`); nil for any other cache.
    private let storedHere: StoredThisRun?
    /// What the cache keeps beside an entry's bytes, made from them.
    public let variants: EntryVariants

    /// A disk cache over `directory`, which must have been `prepare()`d;
    /// `placement` is what `prepare()` returned (nil: read it again).
    /// Without `writes`, lookups change nothing on disk. `madeEmpty`: this
    /// process made the directory, so no entry is there but those it stores
    /// and those other processes store from now on (`isKnownAbsent`).
    public init(
        directory: CacheDirectory, placement: RecordPlacement? = nil, writes: Bool = true, statistics: Statistics,
        events: EventLog = .silent, madeEmpty: Bool = false
    ) {
        self.directory = directory
        self.writes = writes
        storedHere = madeEmpty && writes ? StoredThisRun() : nil
        self.placement = placement ?? directory.recordPlacement()
        layout = Self.layout(self.placement, directory)
        self.statistics = statistics
        self.events = events
        variants = EntryVariants(directory: directory, layout: layout, statistics: statistics, events: events)
    }

    static func layout(_ placement: RecordPlacement, _ directory: CacheDirectory) -> any EntryLayout {
        switch placement {
        case .attributes: AttributeEntryLayout(directory: directory)
        case .files: RecordFileEntryLayout(directory: directory)
        }
    }

    /// Whether a look-up made without the key's download lock may take
    /// `key` as absent without asking the disk: this process made the cache
    /// empty and has stored no entry for `key` since. An entry another
    /// process stores meanwhile is found by the look-up under the download
    /// lock (`NetworkFetch.lookAgain`), which always asks the disk. Saves a
    /// cold URL the `open` that fails (docs/ARCHITECTURE.md).
    func isKnownAbsent(_ key: CacheKey) -> Bool {
        storedHere.map { !$0.mayContain(key.hash) } ?? false
    }

    /// The entry for `key` if it is present and whole; nil on a miss. A
    /// damaged entry is removed and reported as a miss.
    public func lookup(_ key: CacheKey) throws -> CachedData? {
        switch try layout.read(key.hash, withBytes: true) {
        case .absent, .otherVersion, .found(_, bytes: nil):
            return nil
        case .damaged(let entry):
            discardCorrupt(
                key.hash, entry: entry, why: entry == nil ? "damaged metadata record" : "bytes not of the recorded size"
            )
            return nil
        case .found(var entry, bytes: let bytes?):
            guard Digest.xxh3Hex(bytes) == entry.checksum else {
                discardCorrupt(key.hash, entry: entry, why: "bytes do not match their checksum")
                return nil
            }
            markUsed(&entry, key)
            return CachedData(entry: entry, bytes: bytes, path: entry.path ?? "")
        }
    }

    /// What a look-up without the bytes found.
    public enum BytelessLookup: Sendable {
        /// The entry, accepted and marked used; its bytes are not read (`CachedData.bytes` is empty).
        case accepted(CachedData)
        /// No entry at all: a miss, with nothing more to look at.
        case absent
        /// A record not accepted, damaged, or whose bytes are not at its
        /// size: `lookup` tells which.
        case undecided
    }

    /// The entry for `key` without its bytes, if `accepting` takes its
    /// record: `peek`, then the entry is marked used. The bytes are neither
    /// read nor verified. A record not accepted is left unmarked.
    public func lookupWithoutBytes(_ key: CacheKey, accepting: (CacheEntry) -> Bool) -> BytelessLookup {
        switch try? layout.read(key.hash, withBytes: false) {
        case .absent: return .absent
        case .found(var entry, _):
            guard let path = entry.path, accepting(entry) else { return .undecided }
            markUsed(&entry, key)
            return .accepted(CachedData(entry: entry, bytes: [], path: path))
        default: return .undecided
        }
    }

    /// How precisely last use is kept: an entry used again within a minute
    /// of its last use is not marked again, so a batch run twice in a row
    /// writes no file metadata. `clean --max-age` and LRU eviction work in
    /// hours and days.
    static let lastUseResolution: Double = 60

    /// Marks `entry` used now, unless it was within `lastUseResolution`.
    private func markUsed(_ entry: inout CacheEntry, _ key: CacheKey) {
        let now = WallClock.now()
        guard writes, !(0..<Self.lastUseResolution).contains(now - entry.lastUsed) else { return }
        layout.markUsed(key.hash)
        entry.lastUsed = now
    }

    /// Stores `bytes` (also found in the file at `temporaryPath`, which is
    /// consumed) under `key`, replacing any older entry. A caller that knows
    /// there is none (it looked under the key's download lock) passes
    /// `replacing: false`, which saves reading the old record. Throws
    /// `ImageCoreError` (`.cacheIO`), also for a record the file system
    /// cannot keep (a URL of several kilobytes on ext4): the entry is not stored.
    public func store(
        _ bytes: [UInt8], temporaryPath: String?, key: CacheKey, url: String, info: ImageInfo,
        response: StoredResponse, replacing: Bool = true
    ) throws -> CachedData {
        do {
            return try commit(
                bytes, temporaryPath: temporaryPath, key: key, url: url, info: info, response: response,
                replacing: replacing)
        } catch let error as ExtendedAttribute.ValueTooLarge {
            throw ImageCoreError(.cacheIO, "not stored: its record is too large for the file system (\(error))")
        }
    }

    /// `store`, throwing `ExtendedAttribute.ValueTooLarge` for a record the
    /// file system cannot keep.
    private func commit(
        _ bytes: [UInt8], temporaryPath: String?, key: CacheKey, url: String, info: ImageInfo,
        response: StoredResponse, replacing: Bool
    ) throws -> CachedData {
        let checksum = Digest.xxh3Hex(bytes)
        let shard = directory.shard(key.hash)
        let source = try temporaryPath ?? POSIXFile.writeTemporary(bytes, in: shard)
        let previous = replacing ? Self.peekRecord(layout, key.hash) : nil
        let now = WallClock.now()
        var entry = CacheEntry(
            key: key.string, url: url, info: info, byteCount: bytes.count, checksum: checksum,
            storedAt: now, response: response,
            dataFileName: layout.dataFileName(key.hash, checksum: checksum, byteCount: bytes.count, format: info.format)
        )
        // Noted before the rename: a look-up from then on asks the disk.
        storedHere?.insert(key.hash)
        try layout.commit(entry, bytesAt: source, hash: key.hash)
        entry.lastUsed = now
        entry.path = "\(shard)/\(entry.dataFileName)"
        // New bytes: the old file and every variant made from it go.
        if let previous { removeFiles(of: previous, hash: key.hash, except: entry.dataFileName) }
        return CachedData(entry: entry, bytes: bytes, path: entry.path ?? "")
    }

    /// `store`, except that a record the file system cannot keep is not an
    /// error: the entry is not stored, `-v` says why, and nil is returned.
    func storeIfRecordFits(
        _ bytes: [UInt8], temporaryPath: String?, key: CacheKey, url: String, info: ImageInfo,
        response: StoredResponse, replacing: Bool = true
    ) throws -> CachedData? {
        do {
            return try commit(
                bytes, temporaryPath: temporaryPath, key: key, url: url, info: info, response: response,
                replacing: replacing)
        } catch is ExtendedAttribute.ValueTooLarge {
            events.emit("not stored (its record is too large for the file system): \(url)")
            return nil
        }
    }

    /// Rewrites the record of a revalidated entry (after a 304) with the
    /// updated response; the bytes stay. If a concurrent store replaced the
    /// entry first, or the record no longer fits, nothing is written.
    public func update(_ entry: CacheEntry, key: CacheKey, response: StoredResponse) throws -> CacheEntry {
        var updated = entry
        updated.response = response
        do {
            if try layout.rewriteRecord(key.hash, ifChecksum: entry.checksum, { $0.response = response }) {
                updated.lastUsed = WallClock.now()
            }
        } catch is ExtendedAttribute.ValueTooLarge {
            events.emit("record not renewed (too large): \(entry.url)")
        }
        return updated
    }

    /// Removes the entry for `key`; returns whether there was one.
    @discardableResult
    public func remove(_ key: CacheKey) throws -> Bool {
        let previous = Self.peekRecord(layout, key.hash)
        // The record goes first: without it, nobody can find the bytes.
        let existed = try layout.removeRecord(key.hash)
        if let previous { removeFiles(of: previous, hash: key.hash) }
        return existed
    }

    /// The record for `key` if its bytes are present at the recorded size,
    /// without reading them: fast enough for `stat` on one URL. Never
    /// modifies the cache (last use is not updated).
    public static func peek(directory: CacheDirectory, key: CacheKey) -> CacheEntry? {
        peek(layout(directory.recordPlacement(), directory), key: key)
    }

    private static func peek(_ layout: any EntryLayout, key: CacheKey) -> CacheEntry? {
        guard case .found(let entry, _) = try? layout.read(key.hash, withBytes: false) else { return nil }
        return entry
    }

    /// The record of `hash`, whole or not: what an older entry's files are.
    private static func peekRecord(_ layout: any EntryLayout, _ hash: String) -> CacheEntry? {
        switch try? layout.read(hash, withBytes: false) {
        case .found(let entry, _), .damaged(let entry?): entry
        default: nil
        }
    }

    /// The record of the entry whose file (`.attributes`) or record file
    /// (`.files`) is at `path`, for a scan that found several files for one key.
    static func record(at path: String, placement: RecordPlacement) -> CacheEntry? {
        let bytes: [UInt8]?
        switch placement {
        case .attributes:
            guard case .value(let value) = ExtendedAttribute.read(RecordPlacement.recordName, path: path) else {
                return nil
            }
            bytes = value
        case .files:
            bytes = (try? POSIXFile.read(path, limit: 1 << 20)) ?? nil
        }
        return bytes.flatMap(CacheEntry.init(parsing:))
    }

    private func discardCorrupt(_ hash: String, entry: CacheEntry?, why: String) {
        statistics.add(.corruptEntries)
        events.emit("\(writes ? "discarded" : "ignored") corrupt entry \(entry?.url ?? hash): \(why)")
        guard writes else { return }
        _ = try? layout.removeRecord(hash)
        if let entry { removeFiles(of: entry, hash: hash) }
    }

    /// Removes an entry's bytes and variants (not what `removeRecord`
    /// removes), except the file named `keep`: the new bytes when a store
    /// reused the old name.
    private func removeFiles(of entry: CacheEntry, hash: String, except keep: String? = nil) {
        let shard = directory.shard(hash)
        for name in [entry.dataFileName] + entry.variants.map(\.fileName) where name != keep && name != hash {
            _ = try? POSIXFile.remove("\(shard)/\(name)")
        }
    }
}
