internal import CImageCoreShims

/// A HEIC thumbnail made from libde265's Y, Cb and Cr planes, for the files
/// it can make exactly: the primary item an `hvc1` image or a `grid` of
/// them, 8-bit 4:2:0 or 4:4:4, without alpha, `clap` or an embedded
/// thumbnail big enough to take instead. Each plane is area-averaged to the
/// thumbnail's size as floats, and only the thumbnail's pixels are turned
/// into RGB with the coded image's matrix and range, as libheif would have
/// turned them at full size: libheif 1.15's `heif_decode_image` converts
/// every pixel to RGB first (a 12 MP HEIC's 1024 px thumbnail: 8.48 G
/// instructions through libheif, 7.6 G this way, 7.08 G of either in
/// libde265). `irot` and `imir` are applied to the thumbnail, in the order
/// the file lists them. Whatever it cannot do, it declines (nil), and
/// `HEIFDecoder` takes libheif's path.
///
/// The pixels are within 2 of libheif's RGB averaged the same way where
/// the conversion clips nothing (the shrink and the conversion commute but
/// for rounding), within 3 on a 12 MP photo (mean 0.12): `HEVCThumbnailTests`.
/// Matrix and range come from the item's `colr` nclx, else from the
/// stream's VUI, as libheif takes them.
struct HEVCThumbnail {
    /// One coded HEVC image: its decoder configuration's parameter sets
    /// (`hvcC`: VPS, SPS, PPS) and its data's byte ranges in the file, a
    /// sequence of NAL units each behind a `lengthSize`-byte length.
    struct CodedImage {
        var parameterSets: [ArraySlice<UInt8>]
        var lengthSize: Int
        var data: [Range<Int>]
        var width: Int
        var height: Int
        /// The item's own `colr` nclx: matrix coefficients and full range, if it has one.
        var colour: (matrix: Int, fullRange: Bool)?

        /// The bytes of the file `data` covers, counted again where extents repeat.
        var codedBytes: Int { data.reduce(0) { $0 + $1.count } }

        /// Whether every sequence parameter set, in `hvcC` or among the
        /// data's NAL units, codes a picture of about the `ispe` size the
        /// limits checked: libde265 allocates the SPS's size, which nothing
        /// else bounds (up to 2²¹ × 2²¹), and only after decoding would the
        /// layout check see it differ. The coded size may exceed `ispe` by
        /// less than a 64-sample block (padding a conformance window crops).
        func sequencesFit(_ bytes: [UInt8]) -> Bool {
            func fits(_ unit: ArraySlice<UInt8>) -> Bool {
                guard unit.count >= 2, (unit[unit.startIndex] >> 1) & 0x3F == 33 else { return true }
                guard let size = HEVCThumbnail.pictureSize(sequenceParameterSet: unit) else { return false }
                return size.width < width + 64 && size.height < height + 64
            }
            guard parameterSets.allSatisfy(fits) else { return false }
            for range in data {
                var index = range.lowerBound
                while index + lengthSize <= range.upperBound {
                    let length = Int(ISOBoxes.readUInt(bytes[...], at: index, bytes: lengthSize))
                    index += lengthSize
                    guard length <= range.upperBound - index else { break }  // the decode refuses it
                    guard fits(bytes[index..<(index + length)]) else { return false }
                    index += length
                }
            }
            return true
        }
    }

    /// `pic_width_in_luma_samples` and `pic_height_in_luma_samples` of a
    /// sequence parameter set NAL unit (H.265 7.3.2.2, after its
    /// profile_tier_level), emulation prevention bytes removed; nil if it
    /// ends first.
    static func pictureSize(sequenceParameterSet unit: ArraySlice<UInt8>) -> (width: Int, height: Int)? {
        // The first 2 + 15 + 2 × 7 × 12 bytes of payload hold every field read here, at most.
        var payload: [UInt8] = []
        var zeros = 0
        for byte in unit.dropFirst(2).prefix(256) {
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            payload.append(byte)
        }
        var bit = 0
        func read(_ count: Int) -> Int? {
            guard bit + count <= payload.count * 8 else { return nil }
            var value = 0
            for _ in 0..<count {
                value = value << 1 | Int(payload[bit >> 3] >> (7 - UInt8(bit & 7)) & 1)
                bit += 1
            }
            return value
        }
        func golomb() -> Int? {
            var zeros = 0
            while true {
                guard let flag = read(1), zeros <= 31 else { return nil }
                if flag == 1 { break }
                zeros += 1
            }
            return read(zeros).map { (1 << zeros) - 1 + $0 }
        }
        guard read(4) != nil, let subLayers = read(3), read(1) != nil, read(96) != nil else { return nil }
        var present: [(profile: Bool, level: Bool)] = []
        for _ in 0..<subLayers {
            guard let flags = read(2) else { return nil }
            present.append((flags & 2 != 0, flags & 1 != 0))
        }
        if subLayers > 0 { guard read(2 * (8 - subLayers)) != nil else { return nil } }
        for layer in present {
            guard read(layer.profile ? 88 : 0) != nil, read(layer.level ? 8 : 0) != nil else { return nil }
        }
        guard golomb() != nil, let chroma = golomb() else { return nil }
        if chroma == 3 { guard read(1) != nil else { return nil } }
        guard let width = golomb(), let height = golomb() else { return nil }
        return (width, height)
    }

    /// The coded images in row order (one for an `hvc1` item).
    let tiles: [CodedImage]
    let columns: Int
    /// The size the tiles make, before `irot` and `imir` (a grid's output
    /// size, its right and bottom tiles cropped; an image's `ispe`).
    let width: Int
    let height: Int
    /// `irot` and `imir` as EXIF orientations, in the file's order.
    let transforms: [Int]
    /// A grid's own `colr` nclx, if any: libheif converts each tile by the
    /// tile's, so a grid whose own says otherwise is left to it.
    let gridColour: (matrix: Int, fullRange: Bool)?

    /// Whether `irot` turns the image a quarter, so the upright size is the coded one swapped.
    var swapsDimensions: Bool { transforms.filter(EXIFOrientation.swapsDimensions).count % 2 == 1 }

    /// The plan for `bytes`' primary item at a `size` thumbnail (upright);
    /// nil if this path cannot make it exactly.
    init?(_ bytes: [UInt8], items: HEIFItems, size: (width: Int, height: Int)) {
        let primary = items.primary
        // Alpha (and depth) planes are auxiliary images referring to the primary one.
        guard !items.references.contains(where: { $0.type == "auxl" && $0.to.contains(primary) }) else { return nil }
        var transforms: [Int] = []
        for (type, payload) in items.properties {
            switch type {
            case "ispe", "pixi", "colr", "hvcC": continue
            case "irot" where !payload.isEmpty: transforms.append([1, 8, 3, 6][Int(payload.first! & 3)])
            case "imir" where !payload.isEmpty: transforms.append(payload.first! & 1 == 1 ? 2 : 4)
            default: return nil  // clap, or anything this path does not know
            }
        }
        self.transforms = transforms
        let swapped = transforms.filter(EXIFOrientation.swapsDimensions).count % 2 == 1
        // An embedded thumbnail at least the size asked for (either way up:
        // it may carry its own irot) may be taken instead: libheif's path, which chooses.
        let thumbnails = items.references.filter { $0.type == "thmb" && $0.to.contains(primary) }.map(\.from)
        let tileIDs = items.references.first { $0.type == "dimg" && $0.from == primary }?.to ?? []
        let catalogue = items.catalogue([primary] + thumbnails + (items.primaryType == "grid" ? tileIDs : []))
        for thumbnail in thumbnails {
            guard let extent = HEIFItems.spatialExtent(catalogue.properties(of: thumbnail)) else { return nil }
            let (long, short) = (max(extent.width, extent.height), min(extent.width, extent.height))
            if long >= max(size.width, size.height) && short >= min(size.width, size.height) { return nil }
        }
        // What libde265 is given (it copies every NAL unit it is pushed) is
        // at most the file: `iloc` may list one extent many times, or many
        // that run to the file's end (length 0), and tiles may share their
        // data, which would make a small file push gigabytes (libheif caps
        // an item's data, MAX_MEMORY_BLOCK_SIZE; no encoder repeats data,
        // so such a file is left to it).
        switch items.primaryType {
        case "hvc1":
            guard let image = Self.codedImage(primary, catalogue, bytes, transformed: true),
                image.codedBytes <= bytes.count
            else { return nil }
            (tiles, columns, width, height, gridColour) = ([image], 1, image.width, image.height, nil)
        case "grid":
            guard let grid = items.grid, !tileIDs.isEmpty, tileIDs.count == grid.rows * grid.columns else { return nil }
            var tiles: [CodedImage] = []
            var codedBytes = 0
            for id in tileIDs {
                guard catalogue.type(of: id) == "hvc1",
                    let tile = Self.codedImage(id, catalogue, bytes, transformed: false),
                    tile.width == tiles.first?.width ?? tile.width, tile.height == tiles.first?.height ?? tile.height
                else { return nil }
                codedBytes += tile.codedBytes
                guard codedBytes <= bytes.count else { return nil }
                tiles.append(tile)
            }
            // Tiles must cover the output, and the last row and column must
            // reach into it; no tile larger than the output, whose size the
            // limits have checked (a one-tile grid could claim any tile size).
            let (tileWidth, tileHeight) = (tiles[0].width, tiles[0].height)
            guard tileWidth * grid.columns >= grid.width, tileWidth * (grid.columns - 1) < grid.width,
                tileHeight * grid.rows >= grid.height, tileHeight * (grid.rows - 1) < grid.height,
                tileWidth <= grid.width, tileHeight <= grid.height
            else { return nil }
            (self.tiles, columns, width, height) = (tiles, grid.columns, grid.width, grid.height)
            gridColour = Self.nclx(items.properties)
        default: return nil
        }
        let upright = swapped ? (width: height, height: width) : (width: width, height: height)
        guard size.width > 0, size.height > 0, upright.width >= size.width, upright.height >= size.height else {
            return nil
        }
    }

    /// Item `id` as an 8-bit HEVC image whose data lies in the file; nil
    /// otherwise, or if it has `irot` or `imir` and is not `transformed`
    /// (a tile: the grid's own are applied).
    private static func codedImage(
        _ id: Int, _ items: HEIFItems.Catalogue, _ bytes: [UInt8], transformed: Bool
    ) -> CodedImage? {
        var parameterSets: [ArraySlice<UInt8>] = []
        var lengthSize = 0
        let properties = items.properties(of: id)
        for (type, payload) in properties {
            switch type {
            case "ispe", "pixi", "colr": continue
            case "irot" where transformed, "imir" where transformed: continue
            case "hvcC":
                guard let parsed = parseConfiguration(payload) else { return nil }
                (parameterSets, lengthSize) = parsed
            default: return nil
            }
        }
        guard lengthSize > 0, let extent = HEIFItems.spatialExtent(properties),
            let data = items.fileExtents(of: id, fileSize: bytes.count)
        else { return nil }
        let image = CodedImage(
            parameterSets: parameterSets, lengthSize: lengthSize, data: data, width: extent.width,
            height: extent.height, colour: nclx(properties))
        return image.sequencesFit(bytes) ? image : nil
    }

    /// The matrix coefficients and full-range flag of the `colr` nclx
    /// among `properties` (colour primaries, transfer characteristics,
    /// matrix: 16 bits each; full range: the top bit), if there is one; an
    /// ICC `colr` is our colour path's.
    private static func nclx(
        _ properties: [(type: String, payload: ArraySlice<UInt8>)]
    ) -> (
        matrix: Int, fullRange: Bool
    )? {
        for (type, payload) in properties where type == "colr" && payload.count >= 11 {
            guard payload.prefix(4).elementsEqual("nclx".utf8) else { continue }
            let base = payload.startIndex + 4
            return (Int(ISOBoxes.readUInt(payload, at: base + 4, bytes: 2)), payload[base + 6] & 0x80 != 0)
        }
        return nil
    }

    /// An `hvcC` box's NAL units and length size, if it declares 8-bit
    /// samples, 4:2:0 or 4:4:4 (libheif 1.15's 4:2:2 conversion gives other
    /// pixels than a conversion of the averaged planes: up to 16 apart).
    private static func parseConfiguration(_ hvcC: ArraySlice<UInt8>) -> ([ArraySlice<UInt8>], Int)? {
        guard hvcC.count >= 23 else { return nil }
        let base = hvcC.startIndex
        let chroma = hvcC[base + 16] & 3, lumaBits = hvcC[base + 17] & 7, chromaBits = hvcC[base + 18] & 7
        guard chroma == 1 || chroma == 3, lumaBits == 0, chromaBits == 0 else { return nil }
        var units: [ArraySlice<UInt8>] = []
        var index = base + 23
        for _ in 0..<hvcC[base + 22] {
            guard index + 3 <= hvcC.endIndex else { return nil }
            let count = Int(ISOBoxes.readUInt(hvcC, at: index + 1, bytes: 2))
            index += 3
            for _ in 0..<count {
                guard index + 2 <= hvcC.endIndex else { return nil }
                let length = Int(ISOBoxes.readUInt(hvcC, at: index, bytes: 2))
                guard index + 2 + length <= hvcC.endIndex else { return nil }
                units.append(hvcC[(index + 2)..<(index + 2 + length)])
                index += 2 + length
            }
        }
        return (units, Int(hvcC[base + 21] & 3) + 1)
    }

    /// The thumbnail, `size` upright, RGBA; nil when libde265 is missing,
    /// reports an error or a warning, or decodes something the headers did
    /// not announce (then libheif's path decides). `colour` replaces the
    /// file's matrix and range (for a test that shows a wrong one is seen).
    func thumbnail(
        _ bytes: [UInt8], size: (width: Int, height: Int), colour forced: (matrix: Int, fullRange: Bool)? = nil
    ) -> [UInt8]? {
        var message = [CChar](repeating: 0, count: 256)
        guard imgcache_hevc_load(&message) == 0 else { return nil }
        let (outWidth, outHeight) = swapsDimensions ? (size.height, size.width) : (size.width, size.height)
        let count = outWidth * outHeight
        var planes = [Float](repeating: 0, count: count * 3)
        var colour: (matrix: Int, fullRange: Bool)?
        let made: Bool = planes.withUnsafeMutableBufferPointer { out in
            if tiles.count == 1 {
                return HEVCPicture.decode(tiles[0], bytes) { picture in
                    guard let layout = picture.layout(width: width, height: height) else { return false }
                    colour = tiles[0].colour ?? picture.colour
                    for plane in 0..<3 {
                        let (planeWidth, planeHeight) = layout[plane]
                        AreaResampler(from: planeWidth, planeHeight, to: outWidth, outHeight).resamplePlane(
                            into: out.baseAddress! + plane * count
                        ) { picture.row($0, plane: plane) }
                    }
                    return true
                } ?? false
            }
            return joinedTiles(bytes, colour: &colour) { plane, planeWidth, planeHeight, samples in
                AreaResampler(from: planeWidth, planeHeight, to: outWidth, outHeight).resamplePlane(
                    into: out.baseAddress! + plane * count
                ) { samples + $0 * planeWidth }
            }
        }
        guard made, let colour = forced ?? colour, gridColour.map({ $0 == colour }) ?? true,
            let conversion = YCbCrConversion(matrix: colour.matrix, fullRange: colour.fullRange)
        else { return nil }
        var image = DecodedImage(
            format: .heif, width: outWidth, height: outHeight,
            frames: [.init(pixels: conversion.rgba(planes, count: count))])
        for orientation in transforms { image = EXIFOrientation.apply(orientation, to: image) }
        return image.frames[0].pixels
    }

    /// A grid's tiles decoded one at a time and placed into whole Y, Cb
    /// and Cr planes (the right and bottom tiles cropped), so that the
    /// shrink sees the picture a single image would give; `body(plane,
    /// width, height, samples)` is called for each plane. False if a tile
    /// fails, differs from the others in layout or colour, or has an odd
    /// size where its chroma is subsampled.
    private func joinedTiles(
        _ bytes: [UInt8], colour: inout (matrix: Int, fullRange: Bool)?,
        _ body: (Int, Int, Int, UnsafePointer<UInt8>) -> Void
    ) -> Bool {
        let (tileWidth, tileHeight) = (tiles[0].width, tiles[0].height)
        var chroma: (x: Int, y: Int)?
        var planes: [[UInt8]] = []
        var sizes: [(Int, Int)] = []
        for (index, tile) in tiles.enumerated() {
            let placed: Bool? = HEVCPicture.decode(tile, bytes) { picture in
                guard let layout = picture.layout(width: tileWidth, height: tileHeight) else { return false }
                let subsampling = (tileWidth / layout[1].width, tileHeight / layout[1].height)
                guard tileWidth % subsampling.0 == 0, tileHeight % subsampling.1 == 0,
                    chroma.map({ $0 == subsampling }) ?? true
                else { return false }
                let tileColour = tile.colour ?? picture.colour
                guard colour.map({ $0 == tileColour }) ?? true else { return false }
                colour = tileColour
                if chroma == nil {
                    chroma = subsampling
                    for plane in 0..<3 {
                        let scale = plane == 0 ? (1, 1) : subsampling
                        sizes.append(((width + scale.0 - 1) / scale.0, (height + scale.1 - 1) / scale.1))
                        planes.append([UInt8](repeating: 0, count: sizes[plane].0 * sizes[plane].1))
                    }
                }
                let (row, column) = index.quotientAndRemainder(dividingBy: columns)
                for plane in 0..<3 {
                    let (planeWidth, planeHeight) = sizes[plane]
                    let (pieceWidth, pieceHeight) = layout[plane]
                    let (left, top) = (column * pieceWidth, row * pieceHeight)
                    let copyWidth = min(pieceWidth, planeWidth - left), copyHeight = min(pieceHeight, planeHeight - top)
                    planes[plane].withUnsafeMutableBufferPointer { target in
                        for y in 0..<copyHeight {
                            (target.baseAddress! + (top + y) * planeWidth + left).update(
                                from: picture.row(y, plane: plane), count: copyWidth)
                        }
                    }
                }
                return true
            }
            guard placed == true else { return false }
        }
        for plane in 0..<3 {
            planes[plane].withUnsafeBufferPointer { body(plane, sizes[plane].0, sizes[plane].1, $0.baseAddress!) }
        }
        return true
    }
}

/// One libde265 decoder and the picture it decoded (`imgcache_hevc_new`,
/// freed with `imgcache_hevc_free`, which also frees the picture).
private final class HEVCPicture {
    private let decoder: OpaquePointer
    private var picture = imgcache_hevc_picture()

    private init?() {
        guard let decoder = imgcache_hevc_new() else { return nil }
        self.decoder = decoder
    }

    deinit { imgcache_hevc_free(decoder) }

    /// `image` decoded, handed to `body` while the picture lives; nil if
    /// libde265 failed or refused a NAL unit, or the data's length fields
    /// run past it. The corresponding C function is `imgcache_hevc_decode`.
    static func decode<Result>(
        _ image: HEVCThumbnail.CodedImage, _ bytes: [UInt8], _ body: (HEVCPicture) -> Result
    ) -> Result? {
        guard let decoder = HEVCPicture() else { return nil }
        let pushed: Bool = bytes.withUnsafeBufferPointer { file in
            for unit in image.parameterSets {
                guard
                    unit.withUnsafeBufferPointer({
                        imgcache_hevc_push(decoder.decoder, $0.baseAddress, Int32($0.count))
                    })
                        == 0
                else { return false }
            }
            for range in image.data {
                var index = range.lowerBound
                while index < range.upperBound {
                    guard index + image.lengthSize <= range.upperBound else { return false }
                    let length = Int(ISOBoxes.readUInt(bytes[...], at: index, bytes: image.lengthSize))
                    index += image.lengthSize
                    guard length <= range.upperBound - index, length < Int(Int32.max),
                        imgcache_hevc_push(decoder.decoder, file.baseAddress! + index, Int32(length)) == 0
                    else { return false }
                    index += length
                }
            }
            return true
        }
        var message = [CChar](repeating: 0, count: 256)
        guard pushed, imgcache_hevc_decode(decoder.decoder, &decoder.picture, &message) == 0 else { return nil }
        return body(decoder)
    }

    /// The VUI's matrix and range (libheif takes them when the item has no `colr` nclx).
    var colour: (matrix: Int, fullRange: Bool) {
        (Int(picture.matrix_coefficients), picture.full_range != 0)
    }

    /// The three planes' sizes, when the picture is `width` × `height`,
    /// 8-bit, and its chroma planes are the luma's halved both ways
    /// (rounding up) or whole; nil otherwise.
    func layout(width: Int, height: Int) -> [(width: Int, height: Int)]? {
        let (widths, heights) = (picture.widths, picture.heights)
        let sizes = [
            (Int(widths.0), Int(heights.0)), (Int(widths.1), Int(heights.1)), (Int(widths.2), Int(heights.2)),
        ]
        let bits = [picture.bits.0, picture.bits.1, picture.bits.2]
        let halved = (width: (width + 1) / 2, height: (height + 1) / 2)
        let chroma: (width: Int, height: Int)
        switch picture.chroma {
        case 1: chroma = halved
        case 3: chroma = (width, height)
        default: return nil
        }
        guard bits == [8, 8, 8], sizes[0] == (width, height), sizes[1] == chroma, sizes[2] == chroma,
            picture.planes.0 != nil, picture.planes.1 != nil, picture.planes.2 != nil
        else { return nil }
        return sizes
    }

    /// Row `y` of `plane` (0: Y, 1: Cb, 2: Cr).
    func row(_ y: Int, plane: Int) -> UnsafePointer<UInt8> {
        let (base, stride) =
            switch plane {
            case 0: (picture.planes.0!, Int(picture.strides.0))
            case 1: (picture.planes.1!, Int(picture.strides.1))
            default: (picture.planes.2!, Int(picture.strides.2))
            }
        return base + y * stride
    }
}

/// Y′CbCr to R′G′B′ as libheif 1.15 converts 8-bit samples (ITU-T H.273):
/// Kr and Kb of the matrix coefficients (1: BT.709; 5, 6 and 2,
/// unspecified: BT.601, libheif's default; 9: BT.2020), luma and chroma
/// stretched from 16...235 and 16...240 when the range is limited.
struct YCbCrConversion {
    let kr: Float
    let kb: Float
    let fullRange: Bool

    /// Nil for the matrices libheif converts otherwise (identity, YCgCo, chromaticity-derived, ...).
    init?(matrix: Int, fullRange: Bool) {
        switch matrix {
        case 1: (kr, kb) = (0.2126, 0.0722)
        case 2, 5, 6: (kr, kb) = (0.299, 0.114)
        case 9: (kr, kb) = (0.2627, 0.0593)
        default: return nil
        }
        self.fullRange = fullRange
    }

    /// `planes` (Y, then Cb, then Cr, `count` floats each) as RGBA bytes, alpha 255.
    func rgba(_ planes: [Float], count: Int) -> [UInt8] {
        let kg = 1 - kr - kb
        let (rCr, bCb) = (2 * (1 - kr), 2 * (1 - kb))
        let (gCb, gCr) = (-2 * kb * (1 - kb) / kg, -2 * kr * (1 - kr) / kg)
        let (lumaScale, chromaScale, lumaOffset): (Float, Float, Float) =
            fullRange ? (1, 1, 0) : (255 / 219, 255 / 224, 16)
        var pixels = [UInt8](repeating: 255, count: count * 4)
        planes.withUnsafeBufferPointer { planes in
            pixels.withUnsafeMutableBufferPointer { out in
                for index in 0..<count {
                    let y = (planes[index] - lumaOffset) * lumaScale
                    let cb = (planes[count + index] - 128) * chromaScale
                    let cr = (planes[2 * count + index] - 128) * chromaScale
                    out[index * 4] = Self.byte(y + rCr * cr)
                    out[index * 4 + 1] = Self.byte(y + gCb * cb + gCr * cr)
                    out[index * 4 + 2] = Self.byte(y + bCb * cb)
                }
            }
        }
        return pixels
    }

    /// `value` rounded to the nearest byte, clamped to 0...255.
    @inline(__always)
    private static func byte(_ value: Float) -> UInt8 {
        let clamped = max(0, min(255, value + 0.5))
        return UInt8(clamped)
    }
}
