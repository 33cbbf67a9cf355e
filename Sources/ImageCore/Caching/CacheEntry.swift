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
    /// Version 3 checks bytes with XXH3-128 (version 2 used SHA-256); a
    /// record of another version reads as a miss (`isOtherVersion`).
    private static let magic = "imgcache-entry 3"
    private static let magicPrefix = Array("imgcache-entry ".utf8)

    /// Whether `bytes` is a whole record of another version: a miss, to be
    /// replaced by the next store, not damage.
    static func isOtherVersion(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: magicPrefix) && !bytes.starts(with: Array((magic + "\n").utf8))
    }

    /// The check line's value for a record body: 16 hex digits of its XXH3-128.
    static func seal(_ body: [UInt8]) -> Substring {
        Digest.xxh3Hex(body).prefix(16)
    }

    /// The record as text: one `name value` line per field, then a line with
    /// the checksum of everything before it, so a damaged record is detected.
    func serialized() -> [UInt8] {
        var lines = [Self.magic]
        func add(_ name: String, _ value: String?) {
            guard let value else { return }
            lines.append("\(name) \(value.filter { !$0.isNewline })")
        }
        add("key", key)
        add("url", url)
        add("format", info.format.rawValue)
        add("width", String(info.width))
        add("height", String(info.height))
        add("frames", String(info.frameCount))
        add("loop", info.loopCount.map(String.init))
        add("orientation", info.orientation == 1 ? nil : String(info.orientation))
        add("bytes", String(byteCount))
        add("xxh3", checksum)
        add("stored", String(storedAt))
        add("etag", response.etag)
        add("last-modified", response.lastModified)
        add("cache-control", response.cacheControl)
        add("fresh-until", response.freshUntil.map { String($0) })
        add("vary", response.vary)
        add("vary-key", response.variantKey)
        add("data", dataFileName)
        for variant in variants {
            add("variant", "\(variant.fileName) \(variant.byteCount) \(variant.checksum) \(variant.transform)")
        }
        let body = lines.joined(separator: "\n") + "\n"
        return Array((body + "check \(Self.seal(Array(body.utf8)))\n").utf8)
    }

    /// Parses a record; nil if it is damaged, incomplete or of another version.
    init?(parsing bytes: [UInt8]) {
        guard let checkStart = Self.lastLineStart(bytes) else { return nil }
        let body = Array(bytes[..<checkStart])
        let checkLine = String(decoding: bytes[checkStart...], as: UTF8.self)
        guard checkLine == "check \(Self.seal(body))\n" else { return nil }
        var fields: [Substring: Substring] = [:]
        var variants: [Variant] = []
        let text = String(decoding: body, as: UTF8.self)
        var lines = text.split(separator: "\n")
        guard lines.first == Substring(Self.magic) else { return nil }
        lines.removeFirst()
        for line in lines {
            // The writer drops newline characters ("\r", U+2028) from values, so a
            // line holding one was not written by it; rewriting such a record
            // changed its values or made it unreadable (found by fuzzing).
            guard let space = line.firstIndex(of: " "), !line.contains(where: \.isNewline) else { return nil }
            let (name, value) = (line[..<space], line[line.index(after: space)...])
            if name == "variant" {
                let parts = value.split(separator: " ")
                guard parts.count == 4, let count = Int(parts[1]), parts[2].count == 32, !parts[0].contains("/") else {
                    return nil
                }
                variants.append(
                    Variant(
                        transform: String(parts[3]), fileName: String(parts[0]), byteCount: count,
                        checksum: String(parts[2])))
            } else {
                fields[name] = value
            }
        }
        guard let key = fields["key"], let url = fields["url"],
            let format = fields["format"].flatMap({ ImageFormat(rawValue: String($0)) }),
            let width = fields["width"].flatMap({ Int($0) }), let height = fields["height"].flatMap({ Int($0) }),
            let frames = fields["frames"].flatMap({ Int($0) }), let byteCount = fields["bytes"].flatMap({ Int($0) }),
            let checksum = fields["xxh3"], checksum.count == 32,
            let storedAt = fields["stored"].flatMap({ Double($0) }), let data = fields["data"],
            !data.contains("/")
        else { return nil }
        self.init(
            key: String(key), url: String(url),
            info: ImageInfo(
                format: format, width: width, height: height, frameCount: frames,
                loopCount: fields["loop"].flatMap { Int($0) },
                orientation: fields["orientation"].flatMap { Int($0) } ?? 1),
            byteCount: byteCount, checksum: String(checksum), storedAt: storedAt,
            response: StoredResponse(
                etag: fields["etag"].map(String.init),
                lastModified: fields["last-modified"].map(String.init),
                cacheControl: fields["cache-control"].map(String.init),
                freshUntil: fields["fresh-until"].flatMap { Double($0) },
                vary: fields["vary"].map(String.init),
                variantKey: fields["vary-key"].map(String.init)),
            dataFileName: String(data))
        self.variants = variants
    }

    private static func lastLineStart(_ bytes: [UInt8]) -> Int? {
        guard bytes.count > 2, bytes.last == UInt8(ascii: "\n") else { return nil }
        var index = bytes.count - 2
        while index >= 0 && bytes[index] != UInt8(ascii: "\n") { index -= 1 }
        return index >= 0 ? index + 1 : nil
    }
}
