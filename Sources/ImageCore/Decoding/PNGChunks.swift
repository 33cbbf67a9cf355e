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
            if bytes[index + 4..<index + 8].elementsEqual("IEND".utf8) { return }
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

    /// The big-endian length field of the chunk starting at `index`.
    private static func length(_ bytes: [UInt8], at index: Int) -> Int {
        Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
    }

    private static func typeName(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}
