extension CacheEntry {
    /// Parses a record; nil if it is damaged, incomplete or of another
    /// version. Works on the bytes: a warm prefetch parses a record per URL,
    /// and Unicode-aware string splitting made that its largest cost.
    init?(parsing bytes: [UInt8]) {
        guard let checkStart = Self.lastLineStart(bytes) else { return nil }
        let body = bytes[..<checkStart]
        guard bytes[checkStart...].elementsEqual(Self.checkLine(Array(body))) else { return nil }
        var fields = Fields()
        var variants: [Variant] = []
        var sawMagic = false
        // Lines are walked in place (blank ones skipped), not split into an array.
        var lineStart = body.startIndex
        while lineStart < body.endIndex {
            let lineEnd = bytes.firstIndex(of: Self.newline, from: lineStart) ?? body.endIndex
            let line = body[lineStart..<lineEnd]
            lineStart = lineEnd + 1
            if line.isEmpty { continue }
            if !sawMagic {
                guard line.elementsEqual(Self.magic.utf8) else { return nil }
                sawMagic = true
                continue
            }
            // The writer drops newline characters ("\r", U+2028) from values, so a
            // line holding one was not written by it; rewriting such a record
            // changed its values or made it unreadable (found by fuzzing).
            guard let space = line.firstIndex(of: UInt8(ascii: " ")), !Self.holdsNewline(line) else { return nil }
            let value = String(decoding: line[(space + 1)...], as: UTF8.self)
            // Names are short: compared as small strings, with no dictionary.
            switch String(decoding: line[..<space], as: UTF8.self) {
            case "variant":
                guard let variant = Self.variant(value) else { return nil }
                variants.append(variant)
            case "key": fields.key = value
            case "url": fields.url = value
            case "format": fields.format = value
            case "width": fields.width = value
            case "height": fields.height = value
            case "frames": fields.frames = value
            case "loop": fields.loop = value
            case "delays": fields.delays = value
            case "orientation": fields.orientation = value
            case "bytes": fields.bytes = value
            case "xxh3": fields.checksum = value
            case "stored": fields.stored = value
            case "etag": fields.etag = value
            case "last-modified": fields.lastModified = value
            case "cache-control": fields.cacheControl = value
            case "fresh-until": fields.freshUntil = value
            case "vary": fields.vary = value
            case "vary-key": fields.variantKey = value
            case "data": fields.data = value
            case "placeholder": fields.placeholder = value
            default: continue
            }
        }
        guard sawMagic, let url = fields.url,
            let format = fields.format.flatMap({ ImageFormat(rawValue: $0) }),
            let width = fields.width.flatMap({ Int($0) }), let height = fields.height.flatMap({ Int($0) }),
            let frames = fields.frames.flatMap({ Int($0) }), let byteCount = fields.bytes.flatMap({ Int($0) }),
            let checksum = fields.checksum, checksum.utf8.count == 32,
            let storedAt = fields.stored.flatMap({ Double($0) }), let data = fields.data,
            !data.utf8.contains(UInt8(ascii: "/"))
        else { return nil }
        self.init(
            key: fields.key ?? url, url: url,
            info: ImageInfo(
                format: format, width: width, height: height, frameCount: frames,
                loopCount: fields.loop.flatMap { Int($0) },
                orientation: fields.orientation.flatMap { Int($0) } ?? 1,
                frameDurations: fields.delays.flatMap { DurationRuns.durations($0, frames: frames) } ?? []),
            byteCount: byteCount, checksum: checksum, storedAt: storedAt,
            response: StoredResponse(
                etag: fields.etag, lastModified: fields.lastModified,
                cacheControl: fields.cacheControl, freshUntil: fields.freshUntil.flatMap { Double($0) },
                vary: fields.vary, variantKey: fields.variantKey),
            dataFileName: data)
        self.variants = variants
        // A malformed one (not written by this reader's writer) is as none: computed again.
        placeholder = fields.placeholder.flatMap(ImagePlaceholder.init(recordValue:))
    }

    /// A record's values by name, as read (the last line of a name wins).
    private struct Fields {
        var key, url, format, width, height, frames, loop, delays, orientation, bytes, checksum, stored: String?
        var etag, lastModified, cacheControl, freshUntil, vary, variantKey, data, placeholder: String?
    }

    static let newline = UInt8(ascii: "\n")

    /// "<file> <bytes> <xxh3> <transform>"; nil if malformed.
    private static func variant(_ value: String) -> Variant? {
        let parts = value.utf8.split(separator: UInt8(ascii: " "))
        guard parts.count == 4, let count = Int(Substring(parts[1])), parts[2].count == 32,
            !parts[0].contains(UInt8(ascii: "/"))
        else { return nil }
        return Variant(
            transform: String(Substring(parts[3])), fileName: String(Substring(parts[0])), byteCount: count,
            checksum: String(Substring(parts[2])))
    }

    /// Whether any byte of `bytes` can start a newline character in UTF-8:
    /// LF, VT, FF or CR, or 0xC2 or 0xE2 (NEL is C2 85, LS and PS E2 80 A8
    /// and A9). Eight bytes at a time while they are all printable ASCII
    /// (none below 0x20 nor above 0x7F), as a record's values nearly always
    /// are: a byte at a time, the test was half of writing a record
    /// (callgrind: 3 k instructions) and of checking one that is read.
    static func mayHoldNewline(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let high: UInt64 = 0x8080_8080_8080_8080
        while index + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            // The high bit of a byte of `below` is set where the byte is under
            // 0x20 (no false alarm for bytes under 0x80); of `word`, where it is 0x80 or more.
            let below = (word &- 0x2020_2020_2020_2020) & ~word & high
            if (word | below) & high != 0 { break }
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte <= 0x0D && byte >= 0x0A || byte == 0xC2 || byte == 0xE2 { return true }
            index += 1
        }
        return false
    }

    /// Whether `line` holds a character Swift counts as a newline: LF, VT,
    /// FF, CR, NEL (U+0085), LS (U+2028) or PS (U+2029), in UTF-8.
    private static func holdsNewline(_ line: ArraySlice<UInt8>) -> Bool {
        guard line.withUnsafeBytes({ mayHoldNewline($0) }) else { return false }
        var index = line.startIndex
        while index < line.endIndex {
            let byte = line[index]
            if (0x0A...0x0D).contains(byte) { return true }
            if byte == 0xC2, index + 1 < line.endIndex, line[index + 1] == 0x85 { return true }
            if byte == 0xE2, index + 2 < line.endIndex, line[index + 1] == 0x80,
                line[index + 2] == 0xA8 || line[index + 2] == 0xA9
            {
                return true
            }
            index += 1
        }
        return false
    }
}
