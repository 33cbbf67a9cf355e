import CImageCoreShims
import TestSupport
import Testing

@testable import ImageCore

/// `CRC32`, which checks every chunk of a downloaded PNG, held to zlib's
/// `crc32` (computed here a bit at a time) both ways it computes (folded with PCLMULQDQ, and by tables), at
/// every length around the fold's steps and every alignment; and a PNG
/// with one byte changed in any chunk still fails its check.
struct CRC32Tests {
    /// Bytes that repeat only after 64 KiB.
    static let bytes: [UInt8] = {
        var state: UInt32 = 2_463_534_242
        return (0..<70_000).map { _ in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        }
    }()

    /// zlib's `crc32`, a bit at a time as ISO 3309 defines it.
    func zlib(_ crc: UInt32, _ slice: ArraySlice<UInt8>) -> UInt32 {
        var c = ~crc
        for byte in slice {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ c >> 1 : c >> 1 }
        }
        return ~c
    }

    @Test func everyLengthAndAlignmentGivesZlibsAnswer() throws {
        let bytes = Self.bytes
        for length in Array(0...300) + [1023, 1024, 1025, 8192, 65_536, 69_997] {
            for offset in 0..<3 {
                let slice = bytes[offset..<offset + length]
                let expected = zlib(0, slice)
                #expect(CRC32.checksum(slice) == expected, "length \(length), offset \(offset)")
                let seed = UInt32(truncatingIfNeeded: length &* 2_654_435_761)
                let continued = slice.withUnsafeBufferPointer { buffer in
                    (
                        imgcache_crc32(seed, buffer.baseAddress, buffer.count),
                        imgcache_crc32_tables(seed, buffer.baseAddress, buffer.count)
                    )
                }
                #expect(continued.0 == zlib(seed, slice), "length \(length), offset \(offset), continued")
                #expect(continued.1 == zlib(seed, slice), "length \(length), offset \(offset), tables")
            }
        }
    }

    @Test func theCheckVectorIsZlibs() {
        #expect(CRC32.checksum(Array("123456789".utf8)[...]) == 0xCBF4_3926)
    }

    @Test(.enabled(if: Corpus.directory != nil, Corpus.missing))
    func aPNGWithAChangedByteInAnyChunkFailsItsCheck() throws {
        let png = try Corpus.bytes("images/png_rgb8_iccp-itxt_photo_skimage-chelsea.png")
        try PNGChunks.verify(png)
        // A byte in each chunk (its type, data or CRC), and every 997th of the file.
        var positions: [Int] = []
        var index = 8
        while index + 12 <= png.count {
            let length = png[index..<index + 4].reduce(0) { $0 << 8 | Int($1) }
            positions += [index + 4, index + 8 + length / 2, index + 8 + length]
            index += 12 + length
        }
        positions += Array(stride(from: 8, to: png.count, by: 997))
        for position in positions where position < png.count {
            var damaged = png
            damaged[position] ^= 0x10
            #expect(throws: ImageCoreError.self, "byte \(position)") { try PNGChunks.verify(damaged) }
        }
    }
}
