import Testing

@testable import ImageCore

/// `HEIFItems` and the HEVC thumbnail's plan over `meta` boxes written
/// here byte by byte: malformed headers no encoder writes, which the
/// parsing must refuse without reading past a box or trusting a length.
struct HEIFItemsTests {
    static func be(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * (count - 1 - $0))) }
    }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be(payload.count + 8, 4) + Array(type.utf8) + payload
    }

    /// A HEIF file whose primary item 1 is a 64 × 64 `hvc1` image (8-bit
    /// 4:2:0, 4-byte NAL lengths) with `pitm`'s payload as given and its
    /// data at `extents` (offset, length) from the start of `mdat`'s 100
    /// bytes (`iloc` version 1, base offset `mdat`'s payload).
    static func file(pitm: [UInt8] = [0, 0, 0, 0, 0, 1], extents: [(offset: Int, length: Int)]) -> [UInt8] {
        let ftyp = box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
        var hvcC = [UInt8](repeating: 0, count: 23)
        (hvcC[0], hvcC[16], hvcC[17], hvcC[18], hvcC[21]) = (1, 0xFD, 0xF8, 0xF8, 0x0F)
        let ispe = box("ispe", [0, 0, 0, 0] + be(64, 4) + be(64, 4))
        let ipma = box("ipma", [0, 0, 0, 0] + be(1, 4) + be(1, 2) + [2, 0x81, 0x02])
        let iprp = box("iprp", box("ipco", box("hvcC", hvcC) + ispe) + ipma)
        let infe = box("infe", [2, 0, 0, 0] + be(1, 2) + be(0, 2) + Array("hvc1".utf8) + [0])
        let iinf = box("iinf", [0, 0, 0, 0] + be(1, 2) + infe)
        func meta(base: Int) -> [UInt8] {
            let iloc = box(
                "iloc",
                [1, 0, 0, 0, 0x44, 0x40] + be(1, 2) + be(1, 2) + be(0, 2) + be(0, 2) + be(base, 4)
                    + be(extents.count, 2) + extents.flatMap { be($0.offset, 4) + be($0.length, 4) })
            return box("meta", [0, 0, 0, 0] + box("pitm", pitm) + iinf + iprp + iloc)
        }
        let base = ftyp.count + meta(base: 0).count + 8
        return ftyp + meta(base: base) + box("mdat", [UInt8](repeating: 0, count: 100))
    }

    /// A `pitm` of version 1 holds a 32-bit id: six bytes are too few,
    /// and reading them past the box's end brought the process down.
    @Test func aPitmTooShortForItsIdIsRefused() throws {
        #expect(HEIFItems(Self.file(pitm: [1, 0, 0, 0, 0, 1], extents: [(0, 100)])) == nil)
        #expect(try #require(HEIFItems(Self.file(pitm: [1, 0, 0, 0, 0, 0, 0, 1], extents: [(0, 100)]))).primary == 1)
        #expect(try #require(HEIFItems(Self.file(extents: [(0, 100)]))).primary == 1)
    }

    /// libde265 copies every NAL unit it is pushed: an item whose extents
    /// repeat the file's bytes (one extent listed many times, or many that
    /// run to the end of the file) would make a small file cost gigabytes.
    /// The plan takes at most as many bytes as the file holds (325 here),
    /// else leaves the file to libheif.
    @Test func anItemsDataIsAtMostTheFile() throws {
        let whole = Self.file(extents: [(0, 100)])
        #expect(HEVCThumbnail(whole, items: try #require(HEIFItems(whole)), size: (8, 8)) != nil)
        let halves = Self.file(extents: [(0, 50), (50, 50)])
        #expect(HEVCThumbnail(halves, items: try #require(HEIFItems(halves)), size: (8, 8)) != nil)
        for extents in [Array(repeating: (0, 100), count: 4), Array(repeating: (0, 0), count: 1000)] {
            let repeated = Self.file(extents: extents)
            let items = try #require(HEIFItems(repeated))
            #expect(items.fileExtents(of: 1, fileSize: repeated.count)?.count == extents.count)
            #expect(HEVCThumbnail(repeated, items: items, size: (8, 8)) == nil, "\(extents.count) extents")
        }
    }
}
