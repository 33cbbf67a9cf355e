/// A walk over an AVIF's or HEIF's top-level ISO-BMFF boxes (`ftyp`,
/// `meta`, `moov`, `mdat`, ...): a cheap whole-file check, run before
/// storing, that catches a body cut short without decoding any AV1 or HEVC.
/// libavif's and libheif's parsers read item extents lazily, so a file cut
/// inside `mdat` parses cleanly and fails only when its pixels are decoded.
enum BoxStructure {
    /// Throws `.image` unless every top-level box is whole, the boxes end
    /// exactly where the file does, and there is media data to decode.
    static func verify(_ bytes: [UInt8], format: String) throws {
        var index = 0
        var types: Set<String> = []
        while index < bytes.count {
            guard index + 8 <= bytes.count else { throw truncated(format, "a box header is cut short") }
            var size = Int(read32(bytes, at: index))
            let type = typeName(bytes[index + 4..<index + 8])
            var headerSize = 8
            if size == 1 {
                guard index + 16 <= bytes.count else { throw truncated(format, "a box header is cut short") }
                let large = UInt64(read32(bytes, at: index + 8)) << 32 | UInt64(read32(bytes, at: index + 12))
                guard large <= UInt64(Int.max) else { throw truncated(format, "box \(type) claims \(large) bytes") }
                size = Int(large)
                headerSize = 16
            } else if size == 0 {
                size = bytes.count - index  // "extends to the end of the file"
            }
            guard size >= headerSize else {
                throw ImageCoreError(.image, "corrupt \(format): box \(type) has size \(size)")
            }
            guard size <= bytes.count - index else {
                throw truncated(format, "box \(type) needs \(size) bytes, \(bytes.count - index) remain")
            }
            types.insert(type)
            index += size
        }
        guard types.contains("ftyp"), types.contains("meta") || types.contains("moov") else {
            throw ImageCoreError(.image, "corrupt \(format): no ftyp and meta boxes")
        }
        // Every encoder we know of puts the coded data in mdat; without one, a
        // cut right after `meta` would look whole.
        guard types.contains("mdat") else { throw truncated(format, "no mdat box") }
    }

    private static func truncated(_ format: String, _ detail: String) -> ImageCoreError {
        ImageCoreError(.image, "corrupt \(format): truncated (\(detail))")
    }

    private static func read32(_ bytes: [UInt8], at index: Int) -> UInt32 {
        UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8
            | UInt32(bytes[index + 3])
    }

    private static func typeName(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}
