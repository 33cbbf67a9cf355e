import ImageCore

/// A JSON object written field by field in a fixed order (JSON Lines output
/// is read by people too, so the order matches the man page, JSON RECORDS).
struct JSONRecord {
    private var fields: [String] = []

    /// Adds a string field; nil is omitted.
    mutating func add(_ name: String, _ value: String?) {
        guard let value else { return }
        fields.append("\(Self.quote(name)):\(Self.quote(value))")
    }

    /// Adds an integer field; nil is omitted.
    mutating func add(_ name: String, _ value: Int?) {
        guard let value else { return }
        fields.append("\(Self.quote(name)):\(value)")
    }

    /// Adds a boolean field (`true`/`false`); nil is omitted.
    mutating func add(_ name: String, _ value: Bool?) {
        guard let value else { return }
        fields.append("\(Self.quote(name)):\(value)")
    }

    /// Adds a number field with up to one decimal; nil is omitted.
    mutating func add(_ name: String, _ value: Double?) {
        guard let value, value.isFinite else { return }
        fields.append("\(Self.quote(name)):\((value * 10).rounded() / 10)")
    }

    /// Adds a nested object.
    mutating func add(_ name: String, _ value: JSONRecord) {
        fields.append("\(Self.quote(name)):\(value.text)")
    }

    /// Adds an array of integers; an empty one is omitted.
    mutating func add(_ name: String, _ values: [Int]) {
        guard !values.isEmpty else { return }
        fields.append("\(Self.quote(name)):[\(values.map(String.init).joined(separator: ","))]")
    }

    /// Adds an array of objects.
    mutating func add(_ name: String, _ values: [JSONRecord]) {
        fields.append("\(Self.quote(name)):[\(values.map(\.text).joined(separator: ","))]")
    }

    /// The object as one line of JSON.
    var text: String { "{" + fields.joined(separator: ",") + "}" }

    /// A JSON string literal.
    static func quote(_ string: String) -> String {
        // Most values (URLs, hashes, placeholders) need no escape: copied
        // whole. Appending them a scalar at a time was most of a warm
        // prefetch's time per URL (perf), and made `--placeholder`'s three
        // extra fields cost a third more.
        if !string.utf8.contains(where: {
            $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0xF4
        }) {
            return "\"" + string + "\""
        }
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            case _ where String.rawByte(scalar) != nil:
                // A path's byte that is not UTF-8 (`String(platformBytes:)`):
                // a lone surrogate, U+DC80 to U+DCFF, as Python's json writes
                // a `surrogateescape`d file name (os.fsencode gives the bytes back).
                out += "\\udc" + String(String.rawByte(scalar)!, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

extension JSONRecord {
    /// `--placeholder`'s fields: `thumbhash`, `blurhash`, `dominant_color`; nothing for nil.
    mutating func add(_ placeholder: ImagePlaceholder?) {
        guard let placeholder else { return }
        add("thumbhash", placeholder.thumbHash)
        add("blurhash", placeholder.blurHash)
        add("dominant_color", placeholder.dominantColour)
    }

    /// The man page's record (JSON RECORDS) for one URL's outcome.
    static func result(
        url: String, key: CacheKey, outcome: Result<ImageResponse, ImageCoreError>,
        durationMs: Double?, path: String? = nil
    ) -> JSONRecord {
        var record = JSONRecord()
        record.add("url", url)
        record.add("key", key.hash)
        switch outcome {
        case .success(let response):
            record.add("result", response.source.rawValue)
            record.add("format", response.info.format.rawValue)
            record.add("icc", response.colourProfileName)
            record.add("width", response.info.width)
            record.add("height", response.info.height)
            record.add("frames", response.info.frameCount)
            record.add("delays_ms", response.info.frameDurations)
            record.add("orientation", response.info.orientation)
            // A prefetch's cached response carries no bytes, only their entry.
            record.add("bytes", response.entry?.byteCount ?? response.bytes.count)
            // The file written under --output-dir, else the cached file.
            record.add("path", path ?? response.path)
            record.add("etag", response.entry?.etag)
            record.add("last_modified", response.entry?.lastModified)
            record.add("expires", response.entry?.expires.map(HTTPDate.iso8601))
            record.add(response.placeholder)
        case .failure(let error):
            record.add("result", error.kind == .failedBefore ? "skipped" : "failed")
        }
        record.add("duration_ms", durationMs)
        if case .failure(let error) = outcome {
            var detail = JSONRecord()
            detail.add("kind", error.kind.rawValue)
            detail.add("message", error.message)
            record.add("error", detail)
        }
        return record
    }
}
