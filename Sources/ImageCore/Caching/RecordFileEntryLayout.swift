/// `RecordPlacement.files`: an entry is two files in its shard, the bytes,
/// named by the key's hash and their checksum (`<hash>.<sum>.<size>.<ext>`),
/// and the record, `<hash>.meta`, which names them. A store renames the
/// bytes into place first and the record second; since the record names the
/// bytes by checksum, a crash between the two renames leaves the old record
/// pointing at the old bytes (or no record), never at wrong ones. Last use
/// is the record's modification time.
struct RecordFileEntryLayout: EntryLayout {
    let directory: CacheDirectory

    func read(_ hash: String, withBytes: Bool) throws -> EntryReading {
        // A concurrent store may replace the bytes between our reading the
        // record and opening the file it names: read the record again once.
        for _ in 0..<2 {
            let record = directory.metadataPath(hash)
            guard let (bytes, modified) = try POSIXFile.readWithModificationTime(record, limit: 1 << 20) else {
                return .absent
            }
            guard var entry = CacheEntry(parsing: bytes) else {
                return CacheEntry.isOtherVersion(bytes) ? .otherVersion : .damaged(nil)
            }
            let path = "\(directory.shard(hash))/\(entry.dataFileName)"
            entry.lastUsed = modified
            entry.path = path
            if withBytes {
                guard let data = try POSIXFile.read(path) else { continue }
                return data.count == entry.byteCount ? .found(entry, bytes: data) : .damaged(entry)
            }
            guard let size = POSIXFile.status(path)?.size else { continue }
            return size == entry.byteCount ? .found(entry, bytes: nil) : .damaged(entry)
        }
        return .absent
    }

    /// Named by the checksum too, so a record can only ever name the bytes it
    /// describes, and by the size, so `clean` can add up a cache without a
    /// `stat` per file.
    func dataFileName(_ hash: String, checksum: String, byteCount: Int, format: ImageFormat) -> String {
        "\(hash).\(checksum.prefix(16)).\(byteCount).\(format.fileExtension)"
    }

    func commit(_ entry: CacheEntry, bytesAt source: String, hash: String) throws {
        let shard = directory.shard(hash)
        try POSIXFile.rename(source, to: "\(shard)/\(entry.dataFileName)", creatingDirectory: true)
        try POSIXFile.writeAtomically(entry.serialized(), to: directory.metadataPath(hash), temporaryDirectory: shard)
    }

    func rewriteRecord(
        _ hash: String, ifChecksum checksum: String, _ change: (inout CacheEntry) -> Void
    ) throws
        -> Bool
    {
        // A store racing this write may leave a record whose bytes are gone:
        // a miss, never wrong bytes.
        guard let bytes = try POSIXFile.read(directory.metadataPath(hash), limit: 1 << 20),
            var entry = CacheEntry(parsing: bytes), entry.checksum == checksum
        else { return false }
        change(&entry)
        try POSIXFile.writeAtomically(
            entry.serialized(), to: directory.metadataPath(hash), temporaryDirectory: directory.shard(hash))
        return true
    }

    func markUsed(_ hash: String) {
        POSIXFile.touch(directory.metadataPath(hash))
    }

    func removeRecord(_ hash: String) throws -> Bool {
        try POSIXFile.remove(directory.metadataPath(hash))
    }
}
