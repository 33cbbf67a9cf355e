import Foundation
import TestSupport

/// HEIC files made at test time by libheif's own `heif-enc` (libheif-examples,
/// x265) from the fixtures, and their reference decodes by `heif-convert`
/// (8-bit PNG, read back by `pngtopam -alphapam`).
enum HEIFSamples {
    /// Whether heif-enc and heif-convert are installed (`make deps`).
    static let toolsPresent =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-enc")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-convert")

    /// The kinds the tests cover, each from a fixture with heif-enc's options.
    enum Kind: String, CaseIterable, Sendable {
        /// 4:2:0 at quality 50, from a 240×160 photo-like PPM.
        case lossy
        /// Lossless 4:4:4 (`-L -p chroma=444`), RGB and alpha.
        case lossless
        /// Lossy with an alpha plane (an auxiliary image of its own).
        case alpha
        /// Lossy with an embedded 64-pixel thumbnail (`-t 64`).
        case thumbnail

        var source: String { self == .lossy || self == .thumbnail ? "photo.png" : "rgba.png" }
        var options: String {
            switch self {
            case .lossy: "-q 50"
            case .lossless: "-L -p chroma=444"
            case .alpha: "-q 70"
            case .thumbnail: "-q 50 -t 64"
            }
        }
    }

    /// A HEIC of `kind`, written in `directory`.
    static func make(_ kind: Kind, in directory: TemporaryDirectory) throws -> [UInt8] {
        let source = try sourcePNG(kind.source, in: directory)
        return try encode(source, options: kind.options, in: directory)
    }

    /// `png` (a path) encoded by heif-enc with `options`.
    static func encode(_ png: String, options: String, in directory: TemporaryDirectory) throws -> [UInt8] {
        let out = "\(directory.path)/out-\(UUID().uuidString).heic"
        _ = try Shell.output("heif-enc \(options) -o '\(out)' '\(png)' >/dev/null 2>&1")
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
    }

    /// heif-convert's decode of `heic`, as Netpbm (RGBA when it has alpha).
    static func reference(_ heic: [UInt8], in directory: TemporaryDirectory) throws -> NetpbmImage {
        let base = "\(directory.path)/ref-\(UUID().uuidString)"
        try Data(heic).write(to: URL(fileURLWithPath: "\(base).heic"))
        _ = try Shell.output("heif-convert '\(base).heic' '\(base).png' >/dev/null 2>&1")
        return try NetpbmImage(Shell.output("pngtopam -alphapam '\(base).png' 2>/dev/null"))
    }

    /// A fixture as PNG: `rgba.png` as it is, `photo.png` the 24×16
    /// baseline JPEG enlarged tenfold (240×160) by pamscale.
    static func sourcePNG(_ name: String, in directory: TemporaryDirectory) throws -> String {
        let path = "\(directory.path)/\(name)"
        if name == "photo.png" {
            let jpeg = "\(directory.path)/baseline.jpg"
            try Data(Fixtures.bytes("baseline.jpg")).write(to: URL(fileURLWithPath: jpeg))
            _ = try Shell.output("djpeg -ppm '\(jpeg)' | pamscale 10 | pnmtopng > '\(path)' 2>/dev/null")
        } else {
            try Data(Fixtures.bytes(name)).write(to: URL(fileURLWithPath: path))
        }
        return path
    }

    /// `heic` with its primary item's `ispe` claiming `width` × `height`
    /// (a crafted header: the coded picture is unchanged).
    static func claimingSize(_ heic: [UInt8], width: UInt32, height: UInt32) -> [UInt8] {
        var bytes = heic
        guard let at = (0..<(bytes.count - 4)).first(where: { bytes[$0..<($0 + 4)].elementsEqual("ispe".utf8) })
        else { return bytes }
        let fields = [width, height].flatMap { value in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        bytes.replaceSubrange((at + 8)..<(at + 16), with: fields)
        return bytes
    }
}

extension HEIFSamples {
    /// `heic` (as heif-enc writes it: one `meta` before `mdat`, 32-bit box
    /// sizes) with `properties` (whole boxes: `irot`, `imir`, `clap`) added
    /// to `ipco` and associated, in order and as essential, with the
    /// primary item; `iloc`'s file offsets move with `meta`'s growth.
    static func addingProperties(_ properties: [[UInt8]], to heic: [UInt8]) -> [UInt8] {
        func u32(_ bytes: [UInt8], _ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        func be(_ value: Int, _ count: Int) -> [UInt8] {
            (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * (count - 1 - $0))) }
        }
        func children(_ bytes: [UInt8], from start: Int) -> [(type: String, box: [UInt8])] {
            var found: [(String, [UInt8])] = []
            var at = start
            while at + 8 <= bytes.count {
                let size = u32(bytes, at)
                found.append(
                    (String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self), Array(bytes[at..<(at + size)])))
                at += size
            }
            return found
        }
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            be(payload.count + 8, 4) + Array(type.utf8) + payload
        }
        let top = children(heic, from: 0)
        guard let metaIndex = top.firstIndex(where: { $0.type == "meta" }) else { return heic }
        let oldMeta = top[metaIndex].box
        var metaChildren = children(oldMeta, from: 12)
        let pitm = metaChildren.first { $0.type == "pitm" }!.box
        let primary = pitm[8] == 0 ? (Int(pitm[12]) << 8 | Int(pitm[13])) : u32(pitm, 12)
        let iprpIndex = metaChildren.firstIndex { $0.type == "iprp" }!
        var iprpChildren = children(metaChildren[iprpIndex].box, from: 8)
        let ipcoIndex = iprpChildren.firstIndex { $0.type == "ipco" }!
        let existing = children(iprpChildren[ipcoIndex].box, from: 8).count
        iprpChildren[ipcoIndex].box = box(
            "ipco", Array(iprpChildren[ipcoIndex].box.dropFirst(8)) + properties.flatMap { $0 })
        let ipmaIndex = iprpChildren.firstIndex { $0.type == "ipma" }!
        let ipma = iprpChildren[ipmaIndex].box
        let (version, wide) = (ipma[8], ipma[11] & 1 == 1)
        let idBytes = version == 0 ? 2 : 4, entryBytes = wide ? 2 : 1
        var rebuilt = Array(ipma[8..<16])
        var at = 16
        for _ in 0..<u32(ipma, 12) {
            let item = ipma[at..<(at + idBytes)].reduce(0) { $0 << 8 | Int($1) }
            let count = Int(ipma[at + idBytes])
            var associations = Array(ipma[(at + idBytes + 1)..<(at + idBytes + 1 + count * entryBytes)])
            var newCount = count
            if item == primary {
                for index in 0..<properties.count {
                    associations +=
                        wide ? be(0x8000 | (existing + 1 + index), 2) : [UInt8(0x80 | (existing + 1 + index))]
                    newCount += 1
                }
            }
            rebuilt += Array(ipma[at..<(at + idBytes)]) + [UInt8(newCount)] + associations
            at += idBytes + 1 + count * entryBytes
        }
        iprpChildren[ipmaIndex].box = box("ipma", rebuilt)
        metaChildren[iprpIndex].box = box("iprp", iprpChildren.flatMap(\.box))
        var meta = box("meta", Array(oldMeta[8..<12]) + metaChildren.flatMap(\.box))
        let growth = meta.count - oldMeta.count
        // iloc: move every extent that construction method 0 places in the file.
        let ilocStart = 12 + metaChildren.prefix { $0.type != "iloc" }.reduce(0) { $0 + $1.box.count }
        let ilocVersion = meta[ilocStart + 8]
        let (offsetSize, lengthSize) = (Int(meta[ilocStart + 12] >> 4), Int(meta[ilocStart + 12] & 15))
        let (baseSize, indexSize) = (
            Int(meta[ilocStart + 13] >> 4), ilocVersion == 0 ? 0 : Int(meta[ilocStart + 13] & 15)
        )
        let itemBytes = ilocVersion == 2 ? 4 : 2
        at = ilocStart + 14
        let items = meta[at..<(at + itemBytes)].reduce(0) { $0 << 8 | Int($1) }
        at += itemBytes
        func shift(_ position: Int, _ size: Int) {
            guard size > 0 else { return }
            let value = meta[position..<(position + size)].reduce(0) { $0 << 8 | Int($1) } + growth
            meta.replaceSubrange(position..<(position + size), with: be(value, size))
        }
        for _ in 0..<items {
            at += itemBytes
            var method = 0
            if ilocVersion >= 1 {
                method = Int(meta[at + 1] & 15)
                at += 2
            }
            at += 2  // data reference index
            let basePosition = at
            at += baseSize
            let extents = Int(meta[at]) << 8 | Int(meta[at + 1])
            at += 2
            if method == 0 && baseSize > 0 { shift(basePosition, baseSize) }
            for _ in 0..<extents {
                at += indexSize
                if method == 0 && baseSize == 0 { shift(at, offsetSize) }
                at += offsetSize + lengthSize
            }
        }
        return top.prefix(metaIndex).flatMap(\.box) + meta + top.dropFirst(metaIndex + 1).flatMap(\.box)
    }

    /// A property box: `irot` (quarter turns anticlockwise), `imir` (0:
    /// top and bottom swapped, 1: left and right), `clap` (a centred
    /// `width` × `height` window).
    static func irot(_ quarterTurns: UInt8) -> [UInt8] { [0, 0, 0, 9] + Array("irot".utf8) + [quarterTurns & 3] }
    static func imir(_ axis: UInt8) -> [UInt8] { [0, 0, 0, 9] + Array("imir".utf8) + [axis & 1] }
    static func clap(width: Int, height: Int) -> [UInt8] {
        let fields = [width, 1, height, 1, 0, 1, 0, 1].flatMap { value in
            [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
        }
        return [0, 0, 0, 40] + Array("clap".utf8) + fields
    }
}

extension HEIFSamples {
    /// `scripts/make-heif-grid.py`: what heif-enc 1.15 cannot write, built
    /// from what it wrote (a grid of tiles; an alpha plane of another size).
    static let gridScript = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/make-heif-grid.py").path

    /// The photo (240×160) as a 2×2 grid of 128×96 tiles, each coded by
    /// heif-enc on its own (the right and bottom ones padded, and cropped
    /// by the grid's output size), as phones write their photos; with
    /// `alpha`, a gradient alpha plane of that size as its auxiliary image.
    static func grid(alpha: (width: Int, height: Int)? = nil, in directory: TemporaryDirectory) throws -> [UInt8] {
        let base = "\(directory.path)/grid-\(UUID().uuidString)"
        let photo = try sourcePNG("photo.png", in: directory)
        _ = try Shell.output("pngtopnm '\(photo)' | pnmpad -right=16 -bottom=32 > '\(base).ppm'")
        var tiles: [String] = []
        for row in 0..<2 {
            for column in 0..<2 {
                let tile = "\(base)-\(row)\(column)"
                _ = try Shell.output(
                    "pamcut -left=\(column * 128) -top=\(row * 96) -width=128 -height=96 '\(base).ppm' "
                        + "| pnmtopng > '\(tile).png' && heif-enc -q 50 -o '\(tile).heic' '\(tile).png' >/dev/null 2>&1"
                )
                tiles.append("'\(tile).heic'")
            }
        }
        let alphaOption = try alpha.map { "--alpha '\(try plane($0.width, $0.height, at: base))'" } ?? ""
        _ = try Shell.output(
            "python3 '\(gridScript)' -o '\(base).heic' --grid 2 2 240 160 \(alphaOption) \(tiles.joined(separator: " "))"
        )
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(base).heic")))
    }

    /// `png` (a path, `width` × `height`) as a grid of `rows` × `columns`
    /// tiles of `tileWidth` × `tileHeight`, each coded by heif-enc at
    /// quality 90 on its own from an RGB PNG (from a palette PNG, heif-enc
    /// 1.15 codes some tiles in 10 bits), the right and bottom ones padded
    /// (and cropped by the grid's output size).
    static func grid(
        of png: String, width: Int, height: Int, rows: Int, columns: Int, tileWidth: Int, tileHeight: Int,
        in directory: TemporaryDirectory
    ) throws -> [UInt8] {
        let base = "\(directory.path)/tiled-\(UUID().uuidString)"
        _ = try Shell.output(
            "pngtopnm '\(png)' | pnmpad -right=\(columns * tileWidth - width) -bottom=\(rows * tileHeight - height) "
                + "> '\(base).ppm'")
        var tiles: [String] = []
        for row in 0..<rows {
            for column in 0..<columns {
                let tile = "\(base)-\(row)-\(column)"
                _ = try Shell.output(
                    "pamcut -left=\(column * tileWidth) -top=\(row * tileHeight) -width=\(tileWidth) "
                        + "-height=\(tileHeight) '\(base).ppm' | pnmtopng -force > '\(tile).png' "
                        + "&& heif-enc -q 90 -o '\(tile).heic' '\(tile).png' >/dev/null 2>&1")
                tiles.append("'\(tile).heic'")
            }
        }
        _ = try Shell.output(
            "python3 '\(gridScript)' -o '\(base).heic' --grid \(rows) \(columns) \(width) \(height) "
                + tiles.joined(separator: " "))
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(base).heic")))
    }

    /// The photo coded whole, with a gradient alpha plane of `width` × `height`.
    static func withAlpha(width: Int, height: Int, in directory: TemporaryDirectory) throws -> [UInt8] {
        let base = "\(directory.path)/alpha-\(UUID().uuidString)"
        let photo = try sourcePNG("photo.png", in: directory)
        _ = try Shell.output("heif-enc -q 50 -o '\(base)-photo.heic' '\(photo)' >/dev/null 2>&1")
        let alpha = try plane(width, height, at: base)
        _ = try Shell.output("python3 '\(gridScript)' -o '\(base).heic' --alpha '\(alpha)' '\(base)-photo.heic'")
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(base).heic")))
    }

    /// A gray gradient `width` × `height` coded by heif-enc; its path.
    private static func plane(_ width: Int, _ height: Int, at base: String) throws -> String {
        let pgm = "\(base)-alpha.pgm"
        let samples = (0..<height).flatMap { y in (0..<width).map { x in UInt8((x * 2 + y * 3) % 256) } }
        try Data(Array("P5 \(width) \(height) 255\n".utf8) + samples).write(to: URL(fileURLWithPath: pgm))
        _ = try Shell.output(
            "pnmtopng '\(pgm)' > '\(base)-alpha.png' && heif-enc -q 90 -o '\(base)-alpha.heic' '\(base)-alpha.png' >/dev/null 2>&1"
        )
        return "\(base)-alpha.heic"
    }
}
