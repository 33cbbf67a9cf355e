#if canImport(Glibc)
    import Glibc
#endif

/// `RecordPlacement.attributes`: an entry is the file `entries/a/<hash>`,
/// its bytes, with its record in the extended attribute
/// `user.imgcache.entry`. The file is written under a unique name in the
/// shard, gets its attribute, and is renamed over `<hash>`: bytes and record
/// arrive together, and replace an older entry together. Last use is the
/// file's modification time.
struct AttributeEntryLayout: EntryLayout {
    let directory: CacheDirectory

    func read(_ hash: String, withBytes: Bool) throws -> EntryReading {
        let path = directory.entryPath(hash)
        let reading = try POSIXFile.withOpenFile(path) { fd -> EntryReading in
            let record: [UInt8]
            switch ExtendedAttribute.read(RecordPlacement.recordName, descriptor: fd) {
            case .value(let bytes): record = bytes
            case .failed(let code): throw ImageCoreError.cacheIO("cannot read the record of", path: path, errno: code)
            // A file without its record: copied without its attributes, or damaged.
            case .absent, .unsupported, .missingFile: return .damaged(nil)
            }
            guard var entry = CacheEntry(parsing: record) else {
                return CacheEntry.isOtherVersion(record) ? .otherVersion : .damaged(nil)
            }
            let (size, modified) = try POSIXFile.status(of: fd, path: path)
            entry.lastUsed = modified
            entry.path = path
            guard size == entry.byteCount else { return .damaged(entry) }
            return .found(entry, bytes: withBytes ? try POSIXFile.read(fd, count: size, path: path) : nil)
        }
        return reading ?? .absent
    }

    func dataFileName(_ hash: String, checksum: String, byteCount: Int, format: ImageFormat) -> String { hash }

    func commit(_ entry: CacheEntry, bytesAt source: String, hash: String) throws {
        do {
            try ExtendedAttribute.write(RecordPlacement.recordName, entry.serialized(), path: source)
        } catch {
            _ = try? POSIXFile.remove(source)
            throw error
        }
        try POSIXFile.rename(source, to: directory.entryPath(hash), creatingDirectory: true)
    }

    func rewriteRecord(
        _ hash: String, ifChecksum checksum: String, _ change: (inout CacheEntry) -> Void
    ) throws
        -> Bool
    {
        let path = directory.entryPath(hash)
        // A store renaming a new file over the path meanwhile leaves this
        // descriptor on the old one: the change is lost, never misapplied.
        let rewritten = try POSIXFile.withOpenFile(path) { fd -> Bool in
            guard case .value(let record) = ExtendedAttribute.read(RecordPlacement.recordName, descriptor: fd),
                var entry = CacheEntry(parsing: record), entry.checksum == checksum
            else { return false }
            change(&entry)
            try ExtendedAttribute.write(RecordPlacement.recordName, entry.serialized(), descriptor: fd, path: path)
            return true
        }
        return rewritten ?? false
    }

    func markUsed(_ hash: String) {
        POSIXFile.touch(directory.entryPath(hash))
    }

    func removeRecord(_ hash: String) throws -> Bool {
        try POSIXFile.remove(directory.entryPath(hash))
    }
}
