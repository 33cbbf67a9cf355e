/// What a disk cache keeps beside an entry's bytes, made from them: its
/// variants (a rendition of the bytes, as `--thumbnail` makes one, in a file
/// of its own that the record names) and its placeholder (in the record).
/// Each is kept only while the entry it was made from is: a record is
/// rewritten only if its bytes still have the checksum they were made from.
///
/// Thread safety: as `DiskCache`, whose layout it shares.
public struct EntryVariants: Sendable {
    let directory: CacheDirectory
    let layout: any EntryLayout
    let statistics: Statistics
    let events: EventLog

    /// The bytes of `entry`'s variant made by `transform`, verified; nil if
    /// it is not kept or is damaged.
    public func bytes(of entry: CacheEntry, key: CacheKey, transform: String) -> [UInt8]? {
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
    /// the entry was replaced meanwhile, or its record would not fit, the
    /// variant is dropped.
    public func store(
        _ bytes: [UInt8], transform: String, fileExtension: String, of entry: CacheEntry,
        key: CacheKey
    ) throws {
        let shard = directory.shard(key.hash)
        let checksum = Digest.xxh3Hex(bytes)
        let fileName = "\(key.hash).v\(checksum.prefix(16)).\(bytes.count).\(fileExtension)"
        try POSIXFile.rename(try POSIXFile.writeTemporary(bytes, in: shard), to: "\(shard)/\(fileName)")
        let variant = CacheEntry.Variant(
            transform: transform, fileName: fileName, byteCount: bytes.count, checksum: checksum)
        let kept: Bool
        do {
            kept = try layout.rewriteRecord(key.hash, ifChecksum: entry.checksum) { current in
                current.variants.removeAll { $0.transform == transform }
                current.variants.append(variant)
            }
        } catch is ExtendedAttribute.ValueTooLarge {
            kept = false
        }
        if !kept { _ = try? POSIXFile.remove("\(shard)/\(fileName)") }
    }

    /// Keeps `placeholder` in `entry`'s record, in one atomic rewrite of the
    /// record (an attribute set, or a record file renamed into place); a
    /// `placeholder` variant file an earlier version kept goes after the
    /// record stops naming it. If the entry was replaced meanwhile, or its
    /// record would not fit, nothing is kept.
    func storePlaceholder(_ placeholder: ImagePlaceholder, of entry: CacheEntry, key: CacheKey) throws {
        var earlierFiles: [String] = []
        do {
            _ = try layout.rewriteRecord(key.hash, ifChecksum: entry.checksum) { current in
                current.placeholder = placeholder
                earlierFiles = current.variants.filter { $0.transform == Self.placeholderVariant }.map(\.fileName)
                current.variants.removeAll { $0.transform == Self.placeholderVariant }
            }
        } catch is ExtendedAttribute.ValueTooLarge {
            return
        }
        let shard = directory.shard(key.hash)
        for name in earlierFiles where name != key.hash { _ = try? POSIXFile.remove("\(shard)/\(name)") }
    }

    /// The variant an earlier version kept a placeholder in, before records held it.
    static let placeholderVariant = "placeholder"
}
