import Dispatch
import Synchronization

/// A scan of the entries directory, shard by shard (several at once): file names, and
/// the metadata (`fstatat`) of one file per entry, never the entries' bytes
/// nor their records. With records in attributes an entry is one file, its
/// size and last use in one `stat`; with record files, a data file's size is
/// in its name and an entry's last use is its record's modification time,
/// so only records are stat'ed. Names stay bytes (`FileName`) throughout.
struct CacheInventory {
    /// One entry as seen on disk: its record and the data files it names.
    /// It holds no reference (its data files are in its shard's
    /// `entryFiles`), so copying it retains nothing and 100 000 of them are
    /// freed as one block: two releases per item, for a data file and a
    /// variant list that an entry in attributes never has, were 45 of a
    /// clean's 264 instructions per entry (callgrind).
    struct Item {
        /// The key hash (the file names' stem).
        var hash: EntryHash
        /// Bytes held by the entry's data files.
        var bytes: Int
        /// Last use: the record's modification time.
        var lastUsed: Double
        /// Whether the record is a file of its own (`<hash>.meta`, `.files`)
        /// rather than an attribute of the entry's file (`<hash>`).
        var recordIsFile: Bool
        /// The data file (the bytes) of a `.files` entry, if present: its
        /// place in the shard's `entryFiles`, or -1.
        fileprivate(set) var data: Int32 = -1
        /// Variants of the bytes (thumbnails), usually none: the first of a
        /// list through the shard's `entryFiles`, or -1.
        fileprivate(set) var variants: Int32 = -1

        /// The entry's file (`.attributes`) or its record (`.files`):
        /// removing it first makes the entry unreachable. Named from the
        /// hash when needed, so a scan keeps no name per entry.
        var record: FileName { hash.fileName(suffix: recordIsFile ? ".meta" : "") }
    }

    /// One shard directory's files, sorted.
    struct Shard {
        /// The shard's name, `0` … `f`.
        let name: String
        /// The open shard directory.
        let directory: OpenDirectory
        /// Where the cache keeps records.
        let placement: RecordPlacement
        /// Entries with a record.
        var items: [Item] = []
        /// Files no record names, with their modification times and sizes:
        /// left by a crash between the two renames of a store, a concurrent
        /// replace, or a record being written.
        var strays: [(name: FileName, modified: Double, bytes: Int)] = []
        /// Downloads in progress or broken off (`<hash>.partial`, its
        /// `.resume` record, a finished body not yet stored): kept for a day.
        var partials: [(name: FileName, modified: Double, bytes: Int)] = []
        /// The items' data files and variants (`Item.data`, `Item.variants`),
        /// each with the place of the item's next variant, or -1.
        private(set) var entryFiles: [(name: FileName, next: Int32)] = []

        /// `item`'s files: its record first (removing it makes the entry
        /// unreachable), then its data file, then its variants.
        func files(of item: Item) -> [FileName] {
            var files = [item.record]
            if item.data >= 0 { files.append(entryFiles[Int(item.data)].name) }
            var next = item.variants
            while next >= 0 {
                files.append(entryFiles[Int(next)].name)
                next = entryFiles[Int(next)].next
            }
            return files
        }

        /// Removes `item`'s files: its record first (once it is gone no
        /// reader can reach the entry's bytes), then its data file and variants.
        func remove(_ item: Item) {
            directory.remove(stem: item.hash.digits, suffix: item.recordIsFile ? ".meta" : "")
            guard item.data >= 0 || item.variants >= 0 else { return }
            for file in files(of: item).dropFirst() { directory.remove(file) }
        }

        /// Keeps `name`, followed by the file at `next` (-1: none); returns its place.
        fileprivate mutating func keep(_ name: FileName, before next: Int32 = -1) -> Int32 {
            entryFiles.append((name, next))
            return Int32(entryFiles.count - 1)
        }
    }

    /// `body`'s result for each shard of `directory`, in shard order; the
    /// shards are read several at once, one per processor. Reading a shard
    /// is one `getdents64` pass and an `fstatat` per entry, all kernel work
    /// that scales with cores (`find` makes the same calls on one).
    static func mapShards<Result: Sendable>(
        in directory: CacheDirectory, _ body: @Sendable (Shard) -> Result
    ) -> [Result] {
        let placement = directory.recordPlacement()
        let names = CacheDirectory.shardNames
        let results = Mutex<[Result?]>(Array(repeating: nil, count: names.count))
        DispatchQueue.concurrentPerform(iterations: names.count) { index in
            guard let shard = shard(names[index], in: directory, placement: placement) else { return }
            let result = body(shard)
            results.withLock { $0[index] = result }
        }
        return results.withLock { $0.compactMap { $0 } }
    }

    /// The shard `name` (`0` … `f`) of `directory`, scanned; nil if it is
    /// missing. Files of the other placement's layout are strays.
    static func shard(_ name: String, in directory: CacheDirectory, placement: RecordPlacement) -> Shard? {
        guard let open = OpenDirectory("\(directory.entries)/\(name)") else { return nil }
        var shard = Shard(name: name, directory: open, placement: placement)
        // Entries first, then each data file joins its entry's item.
        var others: [FileName] = []
        let recordLength = placement == .attributes ? 64 : 69
        let recordIsFile = placement == .files
        // Sized once from the directory's own size (see sizeInBytes), up to
        // 65 536 items (7 MB; an ext4 directory keeps its size when emptied):
        // grown by doubling, 100 000 items were copied 13 MB's worth. Each
        // record is stat'ed as it is read, by the name readdir gave:
        // stat'ing in inode order instead (what gnulib's fts does past 10 000
        // entries) took as much CPU time as it saved, warm.
        var items: [Item] = []
        items.reserveCapacity(min(open.sizeInBytes() / 64, 1 << 16))
        open.forEachEntry { file in
            if file.count == recordLength, let hash = EntryHash(file), !recordIsFile || file.hasSuffix(".meta") {
                if let status = open.status(file) {
                    items.append(
                        Item(
                            hash: hash, bytes: recordIsFile ? 0 : status.size, lastUsed: status.modified,
                            recordIsFile: recordIsFile))
                }
            } else {
                others.append(file.fileName)
            }
        }
        shard.items = items
        // The index of items by hash is built when a data file first needs
        // it: with records in attributes a shard usually has none, and
        // hashing its 6 000 keys was a tenth of a clean's own time.
        var itemIndex: [EntryHash: Int]?
        func item(_ hash: EntryHash) -> Int? {
            if itemIndex == nil {
                itemIndex = Dictionary(
                    shard.items.enumerated().map { ($1.hash, $0) }, uniquingKeysWith: { first, _ in first })
            }
            return itemIndex?[hash]
        }
        var shared: [Int] = []  // items with more than one data file
        for file in others {
            if EntryHash(file) != nil, file.hasPrefix(".partial", at: 64) {
                if let status = open.status(file) { shard.partials.append((file, status.modified, status.size)) }
            } else if let hash = EntryHash(file), let bytes = sizeInName(file), let index = item(hash) {
                shard.items[index].bytes += bytes
                if shard.items[index].data < 0 && recordIsFile {
                    shard.items[index].data = shard.keep(file)
                } else {
                    if shard.items[index].variants < 0 { shared.append(index) }
                    shard.items[index].variants = shard.keep(file, before: shard.items[index].variants)
                }
            } else {
                shard.addStray(file)
            }
        }
        // Several files for one key: the record says which are live (the
        // bytes and their variants); the rest are strays.
        for index in shared { shard.sortOutFiles(of: index) }
        return shard
    }

    /// Directories an older layout left under `base` (`entries/` or
    /// `failed/`): its two-digit shards.
    static func oldLayoutShards(under base: String) -> [String] {
        POSIXFile.list(base).filter { $0.utf8.count == 2 }.map { "\(base)/\($0)" }.filter(POSIXFile.isDirectory)
    }

    /// The size a data file's name says (`<hash>.<sum>.<size>.<ext>`, and
    /// `<hash>.v<sum>.<size>.<ext>` for a variant); nil for other names.
    static func sizeInName(_ name: FileName) -> Int? {
        // After the hash: one field, then the size, then the extension.
        let bytes = name.bytes
        let dot = UInt8(ascii: ".")
        guard bytes.count > 64, bytes[bytes.startIndex + 64] == dot,
            let sizeStart = bytes[(bytes.startIndex + 65)...].firstIndex(of: dot).map({ $0 + 1 }),
            let sizeEnd = bytes[sizeStart...].firstIndex(of: dot), sizeEnd > sizeStart, sizeEnd - sizeStart < 19,
            !bytes[(sizeEnd + 1)...].contains(dot)
        else { return nil }
        var size = 0
        for digit in bytes[sizeStart..<sizeEnd] {
            guard digit >= UInt8(ascii: "0") && digit <= UInt8(ascii: "9") else { return nil }
            size = size * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return size
    }

}

extension CacheInventory.Shard {
    /// Keeps as the item's data and variants the files its record names;
    /// the others become strays. If the record cannot be read, all stay.
    fileprivate mutating func sortOutFiles(of index: Int) {
        let item = items[index]
        guard let entry = DiskCache.record(at: directory.path(of: item.record), placement: placement) else { return }
        let live = Set([entry.dataFileName] + entry.variants.map(\.fileName))
        let files = self.files(of: item).dropFirst()
        // What the entry's own file holds (`.attributes`), without the files sorted here.
        let own = item.bytes - files.reduce(0) { $0 + (CacheInventory.sizeInName($1) ?? 0) }
        var sorted = CacheInventory.Item(
            hash: item.hash, bytes: own, lastUsed: item.lastUsed, recordIsFile: item.recordIsFile)
        for file in files {
            guard live.contains(file.string) else {
                addStray(file)
                continue
            }
            sorted.bytes += CacheInventory.sizeInName(file) ?? 0
            if file.string == entry.dataFileName && placement == .files {
                sorted.data = keep(file)
            } else {
                sorted.variants = keep(file, before: sorted.variants)
            }
        }
        items[index] = sorted
    }

    /// A file no record names; its age and size are stat'ed now (strays are rare).
    fileprivate mutating func addStray(_ name: FileName) {
        guard let status = directory.status(name) else { return }
        strays.append((name, status.modified, status.size))
    }
}

/// A key hash (the 64 hex digits a file name starts with) as eight words
/// loaded straight from the name: a cheap dictionary key for a scan of
/// 100 000 names.
struct EntryHash: Hashable, CustomStringConvertible {
    fileprivate let digits: FileName.Stem

    /// The hash a file name starts with; nil unless 64 characters start it and a dot or its end follows.
    init?(_ name: FileName) {
        guard let digits = name.stem() else { return nil }
        self.digits = digits
    }

    /// The hash a name being read starts with (`init?(_: FileName)`).
    init?(_ name: DirectoryEntryName) {
        guard let digits = name.stem() else { return nil }
        self.digits = digits
    }

    /// The 64 hex digits.
    var description: String { FileName.stemText(digits) }

    /// The file name made of the digits and `suffix`.
    func fileName(suffix: StaticString) -> FileName {
        var bytes = withUnsafeBytes(of: digits) { Array($0) }
        bytes.append(contentsOf: UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount))
        return FileName(bytes)
    }

    static func == (a: EntryHash, b: EntryHash) -> Bool { FileName.stemsEqual(a.digits, b.digits) }

    /// One word is enough: the digits are a SHA-256's, already uniform.
    func hash(into hasher: inout Hasher) {
        hasher.combine(digits.0)
    }
}
