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

    /// A grid of `rows` × `columns` 8 × 8 `hvc1` tiles (items 2, 3, ...;
    /// the grid is item 1, its descriptor in `idat`), each tile's data one
    /// byte of `mdat`; before the grid's entry in `iloc`, `padding` entries
    /// of items no one refers to, each of 65 535 extents of no bytes (all
    /// of `iloc`'s sizes 0 but the base offset's).
    static func grid(rows: Int, columns: Int, padding: Int = 0) -> [UInt8] {
        let count = rows * columns
        let ftyp = box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
        var hvcC = [UInt8](repeating: 0, count: 23)
        (hvcC[0], hvcC[16], hvcC[17], hvcC[18], hvcC[21]) = (1, 0xFD, 0xF8, 0xF8, 0x0F)
        let tileSize = box("ispe", [0, 0, 0, 0] + be(8, 4) + be(8, 4))
        let gridSize = box("ispe", [0, 0, 0, 0] + be(8 * columns, 4) + be(8 * rows, 4))
        let ipco = box("ipco", box("hvcC", hvcC) + tileSize + gridSize)
        let ipma = box(
            "ipma",
            [0, 0, 0, 0] + be(count + 1, 4) + be(1, 2) + [1, 0x03]
                + (2..<(count + 2)).flatMap { be($0, 2) + [2, 0x81, 0x02] })
        let infes = (1..<(count + 2)).flatMap {
            box("infe", [2, 0, 0, 0] + be($0, 2) + be(0, 2) + Array(($0 == 1 ? "grid" : "hvc1").utf8) + [0])
        }
        let iinf = box("iinf", [0, 0, 0, 0] + be(count + 1, 2) + infes)
        let iref = box(
            "iref", [0, 0, 0, 0] + box("dimg", be(1, 2) + be(count, 2) + (2..<(count + 2)).flatMap { be($0, 2) }))
        let idat = box("idat", [0, 0, UInt8(rows - 1), UInt8(columns - 1)] + be(8 * columns, 2) + be(8 * rows, 2))
        func meta(base: Int) -> [UInt8] {
            // Version 1 (a construction method: the grid's is 1, idat), base
            // offsets of 4 bytes, no extent index; offsets and lengths of 4
            // bytes, or none with padding (an extent is then the data from
            // the base offset to the file's end).
            let sizes: [UInt8] = padding > 0 ? [0x00, 0x40] : [0x44, 0x40]
            func entry(_ id: Int, method: Int, base: Int, extents: Int) -> [UInt8] {
                var bytes: [UInt8] = be(id, 2)
                bytes += be(method, 2)
                bytes += be(0, 2)
                bytes += be(base, 4)
                bytes += be(extents, 2)
                return bytes
            }
            var entries: [UInt8] = []
            for item in 0..<padding { entries += entry(60_000 + item, method: 0, base: 0, extents: 65_535) }
            entries += entry(1, method: 1, base: 0, extents: 1)
            if padding == 0 { entries += be(0, 4) + be(8, 4) }
            for tile in 0..<count {
                if padding > 0 {
                    entries += entry(tile + 2, method: 0, base: base + tile, extents: 1)
                } else {
                    entries += entry(tile + 2, method: 0, base: base, extents: 1)
                    entries += be(tile, 4) + be(1, 4)
                }
            }
            let iloc = box("iloc", [1, 0, 0, 0] + sizes + be(padding + count + 1, 2) + entries)
            return box(
                "meta",
                [0, 0, 0, 0] + box("pitm", [0, 0, 0, 0, 0, 1]) + iinf + iref + box("iprp", ipco + ipma) + iloc + idat)
        }
        let base = ftyp.count + meta(base: 0).count + 8
        return ftyp + meta(base: base) + box("mdat", [UInt8](repeating: 0, count: count))
    }

    /// A grid's tiles are looked up in one walk of each table: item by
    /// item, 128 × 128 tiles over tables of 16 385 items were 16 384 walks
    /// of each (see the commit for the figures).
    @Test func aGridsTilesAreLookedUpInOneWalk() throws {
        let bytes = Self.grid(rows: 128, columns: 128)
        let items = try #require(HEIFItems(bytes))
        #expect(items.primaryType == "grid" && items.grid?.rows == 128)
        let plan = try #require(HEVCThumbnail(bytes, items: items, size: (16, 16)))
        #expect(plan.tiles.count == 16_384 && plan.tiles.last?.data == [(bytes.count - 1)..<bytes.count])
    }

    /// The catalogue answers what the item-by-item lookups answer, past
    /// `iloc` entries of 65 535 extents of no bytes (stepped over whole).
    @Test(arguments: [0, 3])
    func theCatalogueAgreesWithEachLookup(padding: Int) throws {
        let bytes = Self.grid(rows: 3, columns: 4, padding: padding)
        let items = try #require(HEIFItems(bytes))
        #expect(items.grid?.columns == 4)
        let ids = Array(1...13) + [60_000, 99]
        let catalogue = items.catalogue(ids)
        for id in ids {
            #expect(catalogue.type(of: id) == items.type(of: id))
            #expect(catalogue.properties(of: id).map(\.type) == items.properties(of: id).map(\.type))
            #expect(catalogue.properties(of: id).map(\.payload) == items.properties(of: id).map(\.payload))
            #expect(
                catalogue.fileExtents(of: id, fileSize: bytes.count) == items.fileExtents(of: id, fileSize: bytes.count)
            )
        }
        #expect(catalogue.fileExtents(of: 13, fileSize: bytes.count) == [(bytes.count - 1)..<bytes.count])
        #expect(catalogue.type(of: 2) == "hvc1" && catalogue.properties(of: 2).map(\.type) == ["hvcC", "ispe"])
        #expect(items.fileExtents(of: 60_000, fileSize: bytes.count)?.count == (padding > 0 ? 65_535 : nil))
    }
}
