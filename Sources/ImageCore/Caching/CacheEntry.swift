/// The metadata record of a disk cache entry. It is the entry's commit record:
/// the bytes are renamed into place first, then this record, so a reader that
/// finds a record finds the bytes it names.
public struct CacheEntry: Sendable, Equatable {
    /// The cache key text.
    public var key: String
    /// The URL that was requested (before any redirect).
    public var url: String
    /// Header facts checked before storing.
    public var info: ImageInfo
    /// Size of the bytes.
    public var byteCount: Int
    /// Hex XXH3-128 of the bytes (32 digits).
    public var checksum: String
    /// When the entry was stored (seconds since 1970).
    public var storedAt: Double
    /// When the entry was last served, from the record's modification time.
    public var lastUsed: Double = 0
    /// What HTTP caching needs of the response: validators, Cache-Control,
    /// freshness deadline, Vary.
    public var response: StoredResponse
    /// The data file's name within its shard directory.
    public var dataFileName: String
    /// Derived images (thumbnails) kept beside the original, in the same
    /// shard; they go when the original goes or changes.
    public var variants: [Variant] = []
    /// Its placeholder (`--placeholder`), once computed: kept in the record
    /// itself, so that a warm run reads it with the record and nothing else.
    public var placeholder: ImagePlaceholder?
    /// The data file's absolute path, once the entry has been found on disk.
    public var path: String?

    /// Creates a record.
    public init(
        key: String, url: String, info: ImageInfo, byteCount: Int, checksum: String, storedAt: Double,
        response: StoredResponse = StoredResponse(), dataFileName: String
    ) {
        self.key = key
        self.url = url
        self.info = info
        self.byteCount = byteCount
        self.checksum = checksum
        self.storedAt = storedAt
        self.response = response
        self.dataFileName = dataFileName
    }

    /// The response's ETag, verbatim.
    public var etag: String? { response.etag }
    /// The response's Last-Modified, verbatim.
    public var lastModified: String? { response.lastModified }
    /// When the entry stops being fresh (seconds since 1970), if it ever was.
    public var expires: Double? { response.freshUntil }
}

extension CacheEntry {
    /// One derived image: its bytes in `fileName`, made by `transform`
    /// (e.g. "thumbnail=512x512,encode=jpeg,quality=85,orient=1").
    public struct Variant: Sendable, Equatable {
        /// What was done to the original, as text with no spaces.
        public var transform: String
        /// The file's name in the entry's shard directory.
        public var fileName: String
        /// Size of the bytes.
        public var byteCount: Int
        /// Hex XXH3-128 of the bytes (32 digits).
        public var checksum: String
    }

    /// The variant made by `transform`, if kept.
    public func variant(_ transform: String) -> Variant? {
        variants.first { $0.transform == transform }
    }
}

extension CacheEntry {
    /// A record may also hold `delays` and `placeholder` lines: readers of
    /// version 4 skip lines they do not know, and a record without them
    /// (written before they were kept) has no delays to show and its
    /// placeholder computed once more, so they needed no new version.
    /// Version 4 leaves out the key when it is the URL, so that a record
    /// fits an ext4 extended attribute (about 4 KB) for URLs of up to 3 KB;
    /// version 3 checked bytes with XXH3-128 too, version 2 with SHA-256. A
    /// record of another version reads as a miss (`isOtherVersion`).
    static let magic = "imgcache-entry 4"
    private static let magicPrefix = Array("imgcache-entry ".utf8)
    /// The last line's name: `check <seal>`.
    private static let checkPrefix = Array("check ".utf8)

    /// Whether `bytes` is a whole record of another version: a miss, to be
    /// replaced by the next store, not damage.
    static func isOtherVersion(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: magicPrefix) && !bytes.starts(with: Array((magic + "\n").utf8))
    }

    /// A record's last line for `body`: `check`, the first 16 hex digits of
    /// its XXH3-128, a newline. Made from the digest's number, as bytes: the
    /// hex string and its substring were 1.9 k instructions a record, made
    /// at every store and at every read.
    static func checkLine(_ body: [UInt8]) -> [UInt8] {
        var line = checkPrefix
        Digest.appendHex(of: Digest.xxh3Word(body), to: &line)
        line.append(newline)
        return line
    }

    /// The check line's value for a record body: its 16 hex digits.
    static func seal(_ body: [UInt8]) -> Substring {
        Substring(decoding: checkLine(body).dropFirst(checkPrefix.count).dropLast(), as: UTF8.self)
    }

    /// The record as text: one `name value` line per field, then a line with
    /// the checksum of everything before it, so a damaged record is detected.
    func serialized() -> [UInt8] {
        // Built as bytes, a line at a time: the record is written once per
        // download, and joining strings cost a score of allocations each time.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        func add(_ name: StaticString, _ value: String?) {
            guard var value else { return }
            bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            bytes.append(UInt8(ascii: " "))
            // Only a value with a byte that can start a newline character is
            // filtered; any other is appended as it is, with no array between,
            // from its contiguous UTF-8 (iterating the UTF8View was 10 k
            // instructions a record, half of writing it; withUTF8, unlike
            // the view's withContiguousStorageIfAvailable, takes small strings too).
            let appended = value.withUTF8 { utf8 in
                for byte in utf8 where byte <= 0x0D && byte >= 0x0A || byte == 0xC2 || byte == 0xE2 {
                    return false
                }
                bytes.append(contentsOf: utf8)
                return true
            }
            if !appended {
                bytes.append(contentsOf: value.filter { !$0.isNewline }.utf8)
            }
            bytes.append(Self.newline)
        }
        // A number's digits straight into the bytes, from the last, on the
        // stack: `String(n)` made a string for each of five fields.
        func add(_ name: StaticString, number: Int?) {
            guard let number else { return }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { digits in
                var start = digits.count
                var rest = number.magnitude
                repeat {
                    start -= 1
                    digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                } while rest > 0
                if number < 0 {
                    start -= 1
                    digits[start] = UInt8(ascii: "-")
                }
                bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
                bytes.append(UInt8(ascii: " "))
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
                bytes.append(Self.newline)
            }
        }
        bytes.append(contentsOf: Self.magic.utf8)
        bytes.append(Self.newline)
        add("key", key == url ? nil : key)
        add("url", url)
        add("format", info.format.rawValue)
        add("width", number: info.width)
        add("height", number: info.height)
        add("frames", number: info.frameCount)
        add("loop", number: info.loopCount)
        add("delays", DurationRuns.text(info.frameDurations))
        add("orientation", number: info.orientation == 1 ? nil : info.orientation)
        add("bytes", number: byteCount)
        add("xxh3", checksum)
        add("stored", String(storedAt))
        add("etag", response.etag)
        add("last-modified", response.lastModified)
        add("cache-control", response.cacheControl)
        add("fresh-until", response.freshUntil.map { String($0) })
        add("vary", response.vary)
        add("vary-key", response.variantKey)
        add("data", dataFileName)
        add("placeholder", placeholder?.recordValue)
        for variant in variants {
            add("variant", "\(variant.fileName) \(variant.byteCount) \(variant.checksum) \(variant.transform)")
        }
        bytes.append(contentsOf: Self.checkLine(bytes))
        return bytes
    }

    static func lastLineStart(_ bytes: [UInt8]) -> Int? {
        guard bytes.count > 2, bytes.last == UInt8(ascii: "\n") else { return nil }
        var index = bytes.count - 2
        while index >= 0 && bytes[index] != UInt8(ascii: "\n") { index -= 1 }
        return index >= 0 ? index + 1 : nil
    }
}
