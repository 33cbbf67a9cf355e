/// A scan of the entries directory: one pass over the shard directories,
/// reading only file metadata (`stat`), never the entries' bytes.
public struct CacheInventory: Sendable {
    /// One entry as seen on disk.
    public struct Item: Sendable {
        /// The key hash (the file name stem).
        public var hash: String
        /// Bytes held by the entry's files.
        public var bytes: Int
        /// Last use: the metadata record's modification time.
        public var lastUsed: Double
        /// Paths of the data files that belong to the entry.
        var dataPaths: [String]
    }

    /// Whole entries (a record and its bytes).
    public var items: [Item] = []
    /// Data files no record names, with their modification times: left by a
    /// crash between the two renames of a store, or by a concurrent replace.
    var strayFiles: [(path: String, modified: Double, bytes: Int)] = []
    /// Downloads in progress or broken off (`<hash>.partial`, its `.resume`
    /// record, and a finished body not yet stored): worth keeping for a day.
    var partialFiles: [(path: String, modified: Double)] = []

    /// The size a data file's name says (`<hash>.<sum>.<size>.<ext>`, and
    /// `<hash>.v<sum>.<size>.<ext>` for a variant); nil for other names.
    static func sizeInName(_ name: String) -> Int? {
        let parts = name.utf8.split(separator: UInt8(ascii: "."))
        guard parts.count == 4, parts[0].count == 64 else { return nil }
        return Int(Substring(parts[2]))
    }

    /// A file no record names; its age is stat'ed now (strays are rare).
    private mutating func addStray(_ path: String) {
        guard let status = POSIXFile.status(path) else { return }
        strayFiles.append((path, status.modified, status.size))
    }

    /// Total bytes of the whole entries.
    public var totalBytes: Int { items.reduce(0) { $0 + $1.bytes } }

    /// Scans `directory`.
    public static func scan(_ directory: CacheDirectory) -> CacheInventory {
        var inventory = CacheInventory()
        for shard in POSIXFile.list(directory.entries) where shard.count == 2 {
            let shardPath = "\(directory.entries)/\(shard)"
            var records: [String: Double] = [:]
            var data: [String: [(name: String, bytes: Int)]] = [:]
            // Only records (last use) and files whose size their name does
            // not say are stat'ed: half the calls of `find -mtime`.
            for file in POSIXFile.listFiles(
                shardPath, statting: { $0.hasSuffix(".meta") || Self.sizeInName($0) == nil })
            {
                let utf8 = file.name.utf8
                let stem = String(file.name[..<(utf8.firstIndex(of: UInt8(ascii: ".")) ?? utf8.endIndex)])
                if utf8.count > 64 && file.name.contains(".partial") {
                    inventory.partialFiles.append(("\(shardPath)/\(file.name)", file.status?.modified ?? 0))
                } else if file.name.hasSuffix(".meta") {
                    records[stem] = file.status?.modified ?? 0
                } else if let bytes = file.status?.size ?? Self.sizeInName(file.name) {
                    data[stem, default: []].append((file.name, bytes))
                }
            }
            for (hash, lastUsed) in records {
                var files = data.removeValue(forKey: hash) ?? []
                if files.count > 1, let entry = try? DiskCache.readRecord(directory.metadataPath(hash)) {
                    // Several files for one key: the record says which are live
                    // (the bytes and their variants); the rest are strays.
                    let live = Set([entry.dataFileName] + entry.variants.map(\.fileName))
                    for stray in files where !live.contains(stray.name) {
                        inventory.addStray("\(shardPath)/\(stray.name)")
                    }
                    files.removeAll { !live.contains($0.name) }
                }
                inventory.items.append(
                    Item(
                        hash: hash, bytes: files.reduce(0) { $0 + $1.bytes }, lastUsed: lastUsed,
                        dataPaths: files.map { "\(shardPath)/\($0.name)" }))
            }
            for files in data.values {
                for file in files { inventory.addStray("\(shardPath)/\(file.name)") }
            }
        }
        return inventory
    }
}
