#if canImport(Glibc)
    import Glibc
#endif

/// The layout of a cache directory, shared by every process that uses it:
///
///     imgcache.conf                    settings all processes agree on
///     CACHEDIR.TAG                     tells backup tools to skip the directory
///     entries/a/<sha256>               an entry: its bytes, exactly as downloaded, with
///                                      its record in the attribute `user.imgcache.entry`
///     entries/a/<sha256>.v<sum>.<size>.<ext>  a variant of the bytes (a thumbnail)
///     entries/a/<pid>-<n>.tmp          an entry or a variant being written (renamed within the shard)
///     entries/a/<sha256>.partial       a download in progress, or broken off (kept for a resume)
///     failed/<sha256>[.<digest>]       failed-URL records (the directory exists only once one was kept)
///     stats/<shard>                    cumulative counters
///     tmp/                             other writes in progress
///
/// `a` is the first hex digit of the key's hash: 16 shards, made once when
/// the cache is prepared. More would cost a fresh cache hundreds of `mkdir`s
/// (each one an inode and a directory block; 256 of them took longer than
/// downloading 1000 images here), fewer would put more names in each
/// directory than its hashed index needs (100 000 entries are 12 500 names
/// a shard). Earlier versions used two digits (`entries/ab/`); `clean`
/// removes those directories.
///
/// On a file system without `user.*` extended attributes (`RecordPlacement`)
/// an entry is two files instead: `entries/a/<sha256>.meta`, the record, and
/// `entries/a/<sha256>.<sum>.<size>.<ext>`, the bytes.
public struct CacheDirectory: Sendable, Equatable {
    /// The absolute path of the cache directory.
    public let root: String

    /// Wraps a path; nothing is created until `prepare()`.
    public init(root: String) {
        var path = root
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        self.root = path
        entries = "\(path)/entries"
    }

    /// Entries live here. Stored, not made per call: every path of an
    /// entry starts with it, and a cold URL names four or five of them.
    public let entries: String
    /// Work in progress lives here.
    public var temporary: String { "\(root)/tmp" }
    /// Failed-URL records live here.
    public var failed: String { "\(root)/failed" }
    /// Counter shards live here.
    public var stats: String { "\(root)/stats" }

    /// The shard directory of a key hash's entry files.
    func shard(_ hash: String) -> String { inShard(hash, file: false, suffix: "") }

    /// The 16 shard names, `0` … `f`; `prepare()` makes `f` last.
    static let shardNames = "0123456789abcdef".map(String.init)

    /// Path of an entry's one file (its bytes, its record in an attribute).
    func entryPath(_ hash: String) -> String { inShard(hash, file: true, suffix: "") }

    /// Path of the metadata record for a key hash (`.files` placement).
    func metadataPath(_ hash: String) -> String { inShard(hash, file: true, suffix: ".meta") }

    /// How long an interrupted download's partial body is kept for resuming
    /// (the downloader resumes only younger ones; clean removes older ones).
    static let partialMaxAge: Double = 86400

    /// Where a download of the key is written, in the shard its bytes will
    /// live in: storing it is then a rename within one directory, which
    /// takes neither the file system's cross-directory rename lock nor the
    /// lock of a directory every download shares.
    func partialPath(_ hash: String) -> String { inShard(hash, file: true, suffix: ".partial") }

    /// `entries/<first digit of hash>`, and with `file`, `/<hash><suffix>`
    /// after it: one string made in place from the parts' UTF-8. Made by
    /// interpolation (the root and `/entries`, then the shard with
    /// `prefix(1)`'s grapheme walk, then the name), a cold URL's paths cost
    /// 10.7 k instructions more (callgrind, 1000 URLs: 390.7 k a URL, now 380.0 k).
    private func inShard(_ hash: String, file: Bool, suffix: StaticString) -> String {
        guard let digit = hash.utf8.first, digit < 0x80 else {
            let shard = "\(entries)/\(hash.prefix(1))"
            return file ? "\(shard)/\(hash)\(suffix)" : shard
        }
        var (entries, hash) = (self.entries, hash)
        return entries.withUTF8 { directory in
            hash.withUTF8 { name in
                let suffixBytes = UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount)
                let count = directory.count + 2 + (file ? 1 + name.count + suffixBytes.count : 0)
                return String(unsafeUninitializedCapacity: count) { out in
                    var end = out.initialize(fromContentsOf: directory)
                    out[end] = UInt8(ascii: "/")
                    out[end + 1] = digit
                    end += 2
                    guard file else { return end }
                    out[end] = UInt8(ascii: "/")
                    end = out[(end + 1)...].initialize(fromContentsOf: name)
                    return out[end...].initialize(fromContentsOf: suffixBytes)
                }
            }
        }
    }

    /// Path of a failed-URL record.
    func failedPath(_ hash: String) -> String { "\(failed)/\(hash)" }

    /// Creates the directory tree (mode 0700) if missing, with every shard
    /// directory, so that a store never has to create one; returns where the
    /// cache keeps its records. A prepared cache costs one `getxattr`, of
    /// `entries/f`, made and marked last. A cache an earlier version made is
    /// marked now: its entries read as misses, and `clean` removes them. The
    /// failed-URL directory is left to the first failure (most caches never
    /// have one). `preferred` is for tests of the `.files` placement.
    @discardableResult
    public func prepare(preferring preferred: RecordPlacement = .attributes) throws -> RecordPlacement {
        try prepared(preferring: preferred).placement
    }

    /// What `prepare()` found or made.
    public struct Prepared: Sendable {
        /// Where the cache keeps its records.
        public var placement: RecordPlacement
        /// Whether this call made the `entries` directory: the cache held
        /// no entry a moment ago.
        public var madeEmpty: Bool
    }

    /// `prepare()`, also saying whether it made the cache empty.
    public func prepared(preferring preferred: RecordPlacement = .attributes) throws -> Prepared {
        let last = "\(entries)/f"
        switch RecordPlacement.marking(of: last) {
        case .marked(let placement): return Prepared(placement: placement, madeEmpty: false)
        case .unsupported: return Prepared(placement: .files, madeEmpty: false)
        case .unmarked: return Prepared(placement: RecordPlacement.mark(last, with: preferred), madeEmpty: false)
        case .missing: break
        }
        // Only a cache without `entries` is known empty: one whose last
        // shard was removed (by hand, or `purge`) may hold entries in others.
        let madeEmpty = POSIXFile.status(entries) == nil
        try POSIXFile.makeDirectories(root)
        for directory in [entries, temporary, stats] {
            try POSIXFile.makeDirectories(directory)
        }
        let tag = "\(root)/CACHEDIR.TAG"
        if POSIXFile.status(tag) == nil {
            let text = "Signature: 8a477f597d28d172789f06886806bc55\n# This file marks an imgcache cache directory.\n"
            try? POSIXFile.writeAtomically(Array(text.utf8), to: tag, temporaryDirectory: temporary)
        }
        return Prepared(placement: try Self.makeShards(in: entries, placement: preferred), madeEmpty: madeEmpty)
    }

    /// Where the cache keeps its records, read without changing anything
    /// (`stat`): `.files` unless marked otherwise.
    public func recordPlacement() -> RecordPlacement {
        if case .marked(let placement) = RecordPlacement.marking(of: "\(entries)/f") { return placement }
        return .files
    }

    /// Creates the shard directories `0` … `f` under `base`, `f` last, and
    /// marks `f` with `placement`; returns the placement the file system took.
    @discardableResult
    static func makeShards(in base: String, placement: RecordPlacement) throws -> RecordPlacement {
        for name in shardNames { try POSIXFile.makeDirectories("\(base)/\(name)") }
        return RecordPlacement.mark("\(base)/f", with: placement)
    }

    /// Why this process can read the cache but not write it (a read-only
    /// mount, another user's directory), as "path: cause"; nil if it can
    /// write it, or cannot read it either (then `prepare()` says why).
    public func readOnlyReason() -> String? {
        guard POSIXFile.directoryAccessError(root, writing: false) == 0 else { return nil }
        let probe = POSIXFile.status(temporary) == nil ? root : temporary
        let denial = POSIXFile.writeDenial(probe)
        guard [EROFS, EACCES, EPERM].contains(denial) else { return nil }
        return "\(probe): \(systemErrorMessage(denial))"
    }

    /// Why this directory cannot serve as a cache, as an `.cacheIO` error
    /// naming the cause: it is not a directory, cannot be read, or (with
    /// `writing`) cannot be written. Nil when it is usable, or missing
    /// (then it is made when needed, or read as empty).
    public func problem(writing: Bool) -> ImageCoreError? {
        let code = POSIXFile.directoryAccessError(root, writing: writing)
        return code == 0 || code == ENOENT ? nil : ImageCoreError(.cacheIO, systemErrorMessage(code))
    }

    /// The default location: `$IMGCACHE_DIR`, else `$XDG_CACHE_HOME/imgcache`
    /// (only if absolute), else `~/.cache/imgcache`, where `~` is `$HOME`
    /// or, when that is unset or empty, the user's home in the password
    /// database (a cron job or `env -i` has no `HOME`; a cache in `/tmp`
    /// would be shared with every user and lost at reboot). Nil when
    /// neither says where home is.
    public static func defaultRoot(environment: [String: String]) -> String? {
        if let explicit = environment["IMGCACHE_DIR"], !explicit.isEmpty { return explicit }
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return "\(xdg)/imgcache" }
        guard let home = environment["HOME"].flatMap({ $0.isEmpty ? nil : $0 }) ?? CurrentProcess.userHomeDirectory
        else { return nil }
        return "\(home)/.cache/imgcache"
    }
}
