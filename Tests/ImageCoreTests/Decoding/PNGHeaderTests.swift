import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// `PNGChunks.plainHeader`, which spares a stored PNG libpng's reader,
/// against libpng's own `png_read_info` (`PNGDecoder.header`): wherever it
/// answers, libpng accepts the file and reads the same size; whatever
/// libpng could refuse before the pixels, it leaves to libpng.
struct PNGHeaderTests {
    /// libpng's answer, with no pixel limit in the way.
    static func libpng(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        let limits = DecodingLimits(maxPixels: .max, maxFrames: 1, maxTotalPixels: .max, maxJPEGScans: 1)
        return (try? PNGDecoder(limits: limits).header(bytes)).map { ($0.width, $0.height) }
    }

    static func expectLibpngAgrees(_ bytes: [UInt8], _ name: String) {
        guard let plain = PNGChunks.plainHeader(bytes) else { return }
        let libpng = libpng(bytes)
        #expect(libpng?.width == plain.width && libpng?.height == plain.height, "\(name): libpng says \(libpng as Any)")
    }

    @Test(.enabled(if: Corpus.directory != nil, Corpus.missing))
    func theCorpusPNGsAreReadAsLibpngReadsThem() throws {
        let directory = try #require(Corpus.directory)
        for folder in ["images", "bad"] {
            let names = try FileManager.default.contentsOfDirectory(
                atPath: directory.appendingPathComponent(folder).path
            ).filter { $0.hasSuffix(".png") }
            #expect(!names.isEmpty)
            for name in names {
                let bytes = try Corpus.bytes("\(folder)/\(name)")
                Self.expectLibpngAgrees(bytes, name)
                // The real images take the path that spares libpng.
                if folder == "images" { #expect(PNGChunks.plainHeader(bytes) != nil, "\(name)") }
            }
        }
    }

    /// `Fixtures.tinyPNG` (4-bit palette) with IHDR's bit depth and colour
    /// type set, chunks of the types in `removing` left out and `inserted`
    /// chunks put before its IDAT, every CRC made right.
    static func variant(
        depth: UInt8? = nil, colourType: UInt8? = nil, removing: [String] = [], inserted: [(String, [UInt8])] = []
    ) -> [UInt8] {
        var chunks: [(type: [UInt8], data: [UInt8])] = []
        let png = Fixtures.tinyPNG
        var index = 8
        while index + 12 <= png.count {
            let length =
                Int(png[index]) << 24 | Int(png[index + 1]) << 16 | Int(png[index + 2]) << 8 | Int(png[index + 3])
            chunks.append((Array(png[index + 4..<index + 8]), Array(png[index + 8..<index + 8 + length])))
            index += 12 + length
        }
        chunks.removeAll { removing.contains(String(decoding: $0.type, as: UTF8.self)) }
        if let depth { chunks[0].data[8] = depth }
        if let colourType { chunks[0].data[9] = colourType }
        let idat = chunks.firstIndex { $0.type == Array("IDAT".utf8) }!
        chunks.insert(contentsOf: inserted.map { (Array($0.0.utf8), $0.1) }, at: idat)
        var bytes = Array(png[0..<8])
        for chunk in chunks {
            let count = UInt32(chunk.data.count)
            bytes += [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
            let typeAndData = chunk.type + chunk.data
            let crc = CRC32.checksum(typeAndData[...])
            bytes +=
                typeAndData + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        }
        return bytes
    }

    @Test func whatLibpngMightRefuseIsLeftToIt() throws {
        let plain = Self.variant()
        #expect(PNGChunks.plainHeader(plain) != nil)
        Self.expectLibpngAgrees(plain, "tiny")
        let leftToLibpng: [(String, [UInt8])] = [
            ("RGB at 4 bits", Self.variant(depth: 4, colourType: 2)),
            ("colour type 5", Self.variant(colourType: 5)),
            ("palette without PLTE", Self.variant(removing: ["PLTE"])),
            ("unknown critical chunk", Self.variant(inserted: [("ABCD", [1, 2, 3])])),
            ("empty PLTE", Self.variant(removing: ["PLTE"], inserted: [("PLTE", [])])),
            ("two PLTEs", Self.variant(inserted: [("PLTE", [0, 0, 0])])),
            (
                "a PLTE of 257 entries",
                Self.variant(removing: ["PLTE"], inserted: [("PLTE", .init(repeating: 0, count: 771))])
            ),
            ("a chunk named with a digit", Self.variant(inserted: [("te1t", [0])])),
            ("IEND before IDAT", Self.variant(inserted: [("IEND", [])])),
        ]
        for (name, bytes) in leftToLibpng {
            #expect(PNGChunks.plainHeader(bytes) == nil, "\(name)")
            #expect(Self.libpng(bytes) == nil, "\(name): libpng accepts it")
        }
        // Ancillary chunks, a palette in a grey image: libpng goes on (a
        // warning at most), and so does the plain path.
        let accepted = Self.variant(colourType: 0, inserted: [("tEXt", Array("a\u{0}b".utf8)), ("zzZz", [9])])
        #expect(PNGChunks.plainHeader(accepted) != nil)
        Self.expectLibpngAgrees(accepted, "ancillary chunks")
    }
}
