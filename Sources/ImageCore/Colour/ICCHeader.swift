/// What imgcache reads of an ICC profile itself, without Little CMS: enough
/// to refuse an obviously damaged one, tell which pixels it describes, and
/// name it (`--json`'s "icc"). ICC.1:2010 section 7.
struct ICCHeader {
    /// The data colour space signature at byte 16: 'RGB ', 'CMYK', 'GRAY', ...
    var colourSpace: String
    /// The 'desc' tag's text, or nil if it has none that reads.
    var description: String?

    /// Parses `bytes`; throws with the reason a profile is refused: shorter
    /// than its header and tag table, a size field that disagrees with the
    /// data, no 'acsp' signature, or a tag that runs past the end.
    init(_ bytes: [UInt8]) throws(ICCError) {
        guard bytes.count >= 132 else { throw ICCError("only \(bytes.count) bytes") }
        let declared = Self.read32(bytes, 0)
        guard declared == bytes.count else {
            throw ICCError("header says \(declared) bytes, \(bytes.count) are there")
        }
        guard bytes[36..<40].elementsEqual("acsp".utf8) else { throw ICCError("no 'acsp' signature") }
        colourSpace = String(decoding: bytes[16..<20], as: UTF8.self)
        let tagCount = Self.read32(bytes, 128)
        guard tagCount <= (bytes.count - 132) / 12 else { throw ICCError("tag table runs past the end") }
        for tag in 0..<tagCount {
            let entry = 132 + tag * 12
            let (offset, size) = (Self.read32(bytes, entry + 4), Self.read32(bytes, entry + 8))
            guard offset <= bytes.count, size <= bytes.count - offset else {
                throw ICCError("tag \(tag) runs past the end")
            }
            if bytes[entry..<entry + 4].elementsEqual("desc".utf8) {
                description = Self.text(bytes[offset..<offset + size])
            }
        }
    }

    /// The text of a 'desc' (ICC v2 textDescriptionType: ASCII) or 'mluc'
    /// (v4 multiLocalizedUnicodeType: the first record, UTF-16BE) tag.
    private static func text(_ tag: ArraySlice<UInt8>) -> String? {
        let data = Array(tag)
        guard data.count >= 12 else { return nil }
        let type = String(decoding: data[0..<4], as: UTF8.self)
        if type == "desc" {
            let count = read32(data, 8)
            guard count > 0, count <= data.count - 12 else { return nil }
            let ascii = data[12..<12 + count].prefix { $0 != 0 }
            return clean(String(decoding: ascii, as: UTF8.self))
        }
        if type == "mluc", data.count >= 28, read32(data, 8) > 0 {
            let (length, offset) = (read32(data, 20), read32(data, 24))
            guard offset <= data.count, length <= data.count - offset else { return nil }
            let units = stride(from: offset, to: offset + length - 1, by: 2).map {
                UInt16(data[$0]) << 8 | UInt16(data[$0 + 1])
            }
            return clean(String(decoding: units.prefix { $0 != 0 }, as: UTF16.self))
        }
        return nil
    }

    private static func clean(_ text: String) -> String? {
        let trimmed = String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
        return trimmed.isEmpty ? nil : trimmed
    }

    static func read32(_ bytes: [UInt8], _ index: Int) -> Int {
        Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
    }
}

/// Why an embedded profile was not used (reported with `-v`, never fatal).
struct ICCError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
