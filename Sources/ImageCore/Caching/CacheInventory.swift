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

    /// Total bytes of the whole entries.
    public var totalBytes: Int { items.reduce(0) { $0 + $1.bytes } }

    /// Scans `directory`.
    public static func scan(_ directory: CacheDirectory) -> CacheInventory {
        var inventory = CacheInventory()
        for shard in POSIXFile.list(directory.entries) where shard.count == 2 {
            let shardPath = "\(directory.entries)/\(shard)"
            var records: [String: Double] = [:]
            var data: [String: [(name: String, modified: Double, bytes: Int)]] = [:]
            for file in POSIXFile.listFiles(shardPath) {
                let utf8 = file.name.utf8
                let stem = String(file.name[..<(utf8.firstIndex(of: UInt8(ascii: ".")) ?? utf8.endIndex)])
                if file.name.hasSuffix(".meta") {
                    records[stem] = file.modified
                } else {
                    data[stem, default: []].append((file.name, file.modified, file.size))
                }
            }
            for (hash, lastUsed) in records {
                var files = data.removeValue(forKey: hash) ?? []
                if files.count > 1, let entry = try? DiskCache.readRecord(directory.metadataPath(hash)) {
                    // Several files for one key: the record says which are live
                    // (the bytes and their variants); the rest are strays.
                    let live = Set([entry.dataFileName] + entry.variants.map(\.fileName))
                    for stray in files where !live.contains(stray.name) {
                        inventory.strayFiles.append(("\(shardPath)/\(stray.name)", stray.modified, stray.bytes))
                    }
                    files.removeAll { !live.contains($0.name) }
                }
                inventory.items.append(Item(hash: hash, bytes: files.reduce(0) { $0 + $1.bytes }, lastUsed: lastUsed,
                                            dataPaths: files.map { "\(shardPath)/\($0.name)" }))
            }
            for files in data.values {
                inventory.strayFiles += files.map { ("\(shardPath)/\($0.name)", $0.modified, $0.bytes) }
            }
        }
        return inventory
    }
}
