/// A walk over a PNG's chunks checking each one's CRC, up to IEND: a cheap
/// whole-file check, run before storing, that catches a body cut short or
/// damaged in transit without decoding the pixels. Bytes after IEND are
/// allowed (browsers ignore them).
enum PNGChunks {
    /// Throws `.image` unless every chunk up to IEND is whole and its CRC matches.
    static func verify(_ bytes: [UInt8]) throws {
        var index = 8  // after the signature
        while index + 12 <= bytes.count {
            let length = length(bytes, at: index)
            guard length <= 0x7FFF_FFFF, index + 12 + length <= bytes.count else { break }
            let typeAndData = index + 4..<index + 8 + length
            let stored = bytes[index + 8 + length..<index + 12 + length].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard CRC32.checksum(bytes[typeAndData]) == stored else {
                throw ImageCoreError(
                    .image, "corrupt PNG: CRC error in chunk \(typeName(bytes[index + 4..<index + 8]))")
            }
            // The type as a number: a slice compared with a `UTF8View` was
            // 150 instructions a chunk (callgrind).
            if Self.length(bytes, at: index + 4) == iend { return }
            index += 12 + length
        }
        throw ImageCoreError(.image, "corrupt PNG: truncated (no IEND chunk)")
    }

    /// Throws `.image` if a chunk other than IDAT claims more bytes than the
    /// data holds. Checked before libpng sees the data: libpng allocates a
    /// text chunk's claimed length (up to 2 GB) before reading it, and only
    /// warns that it is over `png_set_chunk_malloc_max`, so a 16 KB file cost
    /// 1.7 GB per read (found by fuzzing). Such a file fails in libpng anyway,
    /// on reading past the end; IDAT is streamed, and a cut in it is left to
    /// libpng and `verify`, as before.
    static func checkLengths(_ bytes: [UInt8]) throws {
        var index = 8  // after the signature
        while index + 8 <= bytes.count {
            let length = length(bytes, at: index)
            let type = bytes[index + 4..<index + 8]
            if type.elementsEqual("IEND".utf8) || type.elementsEqual("IDAT".utf8) && index + 12 + length > bytes.count {
                return
            }
            guard index + 12 + length <= bytes.count else {
                throw ImageCoreError(
                    .image, "corrupt PNG: truncated (chunk \(typeName(type)) runs past the end of the file)")
            }
            index += 12 + length
        }
    }

    /// The image's size from IHDR, read without libpng, when the chunks up to
    /// the first IDAT leave libpng's `png_read_info` (as `png_shims.c` sets
    /// it up) nothing to refuse: the 8-byte signature; IHDR first, 13 bytes,
    /// width and height 1 to 2^31 - 1, a bit depth the colour type allows,
    /// compression, filter 0 and interlace 0 or 1 (`png_check_IHDR`); then
    /// only chunks named by four letters, none over 64 MiB
    /// (`png_set_chunk_malloc_max`), no critical one but one PLTE of 1 to 256
    /// entries (required before IDAT for a palette image) and IDAT. Nil for
    /// anything else, which goes to libpng for its verdict and its message.
    /// Run after `verify`, which has checked every CRC. Why: libpng's
    /// reader, made and freed for a header, was 14 k instructions a PNG of a
    /// cold prefetch (callgrind); `PNGHeaderTests` holds it to libpng's
    /// answer on the corpus.
    static func plainHeader(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 33, bytes[0..<8].elementsEqual(signature),
            length(bytes, at: 8) == 13, bytes[12..<16].elementsEqual("IHDR".utf8)
        else { return nil }
        let width = length(bytes, at: 16)
        let height = length(bytes, at: 20)
        let (depth, colourType) = (bytes[24], bytes[25])
        let depths: [UInt8] =
            switch colourType {
            case 0: [1, 2, 4, 8, 16]
            case 3: [1, 2, 4, 8]
            case 2, 4, 6: [8, 16]
            default: []
            }
        guard (1...0x7FFF_FFFF).contains(width), (1...0x7FFF_FFFF).contains(height), depths.contains(depth),
            bytes[26] == 0, bytes[27] == 0, bytes[28] <= 1
        else { return nil }
        var index = 33  // after IHDR's data and CRC
        var hasPalette = false
        while index + 12 <= bytes.count {
            let length = length(bytes, at: index)
            let type = bytes[index + 4..<index + 8]
            guard length <= 64 << 20, type.allSatisfy({ (0x41...0x5A).contains($0 & 0xDF) }) else { return nil }
            if type.elementsEqual("IDAT".utf8) { return colourType != 3 || hasPalette ? (width, height) : nil }
            if type.first! & 0x20 == 0 {
                // Critical: only one PLTE of whole entries, 1 to 256 of them.
                guard type.elementsEqual("PLTE".utf8), !hasPalette, length % 3 == 0, (3...768).contains(length)
                else { return nil }
                hasPalette = true
            }
            index += 12 + length
        }
        return nil
    }

    /// The eight bytes every PNG starts with.
    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The big-endian length field of the chunk starting at `index`.
    /// IEND's type as `length` reads four bytes: their big-endian number.
    private static let iend =
        Int(UInt8(ascii: "I")) << 24 | Int(UInt8(ascii: "E")) << 16
        | Int(UInt8(ascii: "N")) << 8 | Int(UInt8(ascii: "D"))

    private static func length(_ bytes: [UInt8], at index: Int) -> Int {
        Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
    }

    private static func typeName(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}
