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
        var line: [UInt8] = []
        appendCheckLine(of: body, to: &line)
        return line
    }

    /// Appends `body`'s check line to `bytes`.
    private static func appendCheckLine(of body: [UInt8], to bytes: inout [UInt8]) {
        let word = Digest.xxh3Word(body)
        bytes.append(contentsOf: checkPrefix)
        Digest.appendHex(of: word, to: &bytes)
        bytes.append(newline)
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
        var text = RecordText()
        text.bytes.append(contentsOf: Self.magic.utf8)
        text.bytes.append(Self.newline)
        text.line("key", key == url ? nil : key)
        text.line("url", url)
        text.line("format", info.format.rawValue)
        text.line("width", number: info.width)
        text.line("height", number: info.height)
        text.line("frames", number: info.frameCount)
        text.line("loop", number: info.loopCount)
        text.line("delays", DurationRuns.text(info.frameDurations))
        text.line("orientation", number: info.orientation == 1 ? nil : info.orientation)
        text.line("bytes", number: byteCount)
        text.line("xxh3", checksum)
        text.line("stored", String(storedAt))
        text.line("etag", response.etag)
        text.line("last-modified", response.lastModified)
        text.line("cache-control", response.cacheControl)
        text.line("fresh-until", response.freshUntil.map { String($0) })
        text.line("vary", response.vary)
        text.line("vary-key", response.variantKey)
        text.line("data", dataFileName)
        text.line("placeholder", placeholder?.recordValue)
        for variant in variants {
            text.line("variant", "\(variant.fileName) \(variant.byteCount) \(variant.checksum) \(variant.transform)")
        }
        Self.appendCheckLine(of: text.bytes, to: &text.bytes)
        return text.bytes
    }

    /// A record's lines as they are written. A value of its own, with
    /// mutating methods, not local functions over a captured array: the
    /// captured array was boxed and every line's change of it checked for
    /// exclusive access at run time (`swift_beginAccess`, 0.8 k instructions
    /// a record, callgrind).
    private struct RecordText {
        var bytes: [UInt8] = []

        init() { bytes.reserveCapacity(512) }

        /// `name value`, newline; nothing for nil. A value that may hold a
        /// newline character is written without them.
        mutating func line(_ name: StaticString, _ value: String?) {
            guard var value else { return }
            bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            bytes.append(UInt8(ascii: " "))
            // Appended from its contiguous UTF-8 (withUTF8 takes small strings
            // too), with no array between, unless a byte of it can start a
            // newline character; then filtered as characters.
            let appended = value.withUTF8 { utf8 in
                guard !CacheEntry.mayHoldNewline(UnsafeRawBufferPointer(utf8)) else { return false }
                bytes.append(contentsOf: utf8)
                return true
            }
            if !appended {
                bytes.append(contentsOf: value.filter { !$0.isNewline }.utf8)
            }
            bytes.append(CacheEntry.newline)
        }

        /// `name` and a number's digits, made from the last on the stack and
        /// appended at once (`String(n)` made a string for each of five
        /// fields); nothing for nil.
        mutating func line(_ name: StaticString, number: Int?) {
            guard let number else { return }
            bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            bytes.append(UInt8(ascii: " "))
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
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
            }
            bytes.append(CacheEntry.newline)
        }
    }

    static func lastLineStart(_ bytes: [UInt8]) -> Int? {
        guard bytes.count > 2, bytes.last == UInt8(ascii: "\n") else { return nil }
        var index = bytes.count - 2
        while index >= 0 && bytes[index] != UInt8(ascii: "\n") { index -= 1 }
        return index >= 0 ? index + 1 : nil
    }
}
