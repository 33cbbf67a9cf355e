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
    var swapsDimensions: Bool { Self.swapsDimensions(transforms) }

    private static func swapsDimensions(_ transforms: [Int]) -> Bool {
        transforms.filter(EXIFOrientation.swapsDimensions).count % 2 == 1
    }

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
        let upright = Self.swapsDimensions(transforms) ? (width: height, height: width) : (width: width, height: height)
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

    /// The thumbnail, `size` upright, RGBA; nil when libde265 is missing,
    /// reports an error or a warning, or decodes something the headers did
    /// not announce (then libheif's path decides). `colour` replaces the
    /// file's matrix and range (for a test that shows a wrong one is seen);
    /// `workers` the threads a grid's tiles are decoded on (for a test that
    /// compares them), else `automaticWorkers`.
    func thumbnail(
        _ bytes: [UInt8], size: (width: Int, height: Int), colour forced: (matrix: Int, fullRange: Bool)? = nil,
        workers: Workers? = nil
    ) -> [UInt8]? {
        var message = [CChar](repeating: 0, count: 256)
        guard imgcache_hevc_load(&message) == 0 else { return nil }
        let (outWidth, outHeight) = swapsDimensions ? (size.height, size.width) : (size.width, size.height)
        let count = outWidth * outHeight
        var planes = [Float](repeating: 0, count: count * 3)
        var colour: (matrix: Int, fullRange: Bool)?
        let made: Bool = planes.withUnsafeMutableBufferPointer { out in
            let workers = workers ?? automaticWorkers()
            defer { workers.release() }
            if tiles.count == 1 {
                // The caller waits while libde265's threads decode: as many as the workers.
                let threads = workers.count > 1 ? workers.count : 0
                return HEVCPicture.decode(tiles[0], bytes, threads: threads) { picture in
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
            colour = HEVCGridStrips(
                self, bytes, into: out.baseAddress!, outWidth: outWidth, outHeight: outHeight, workers: workers.count
            ).run()
            return colour != nil
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
}

extension HEVCThumbnail {
    /// The threads a grid's tiles are decoded on, the calling one among
    /// them, and the share of the process's CPUs they hold until `release`.
    struct Workers {
        let count: Int
        /// What `imgcache_hevc_workers_begin` granted, 0 if it was not asked.
        fileprivate var granted = 0

        /// `count` workers, holding no share (a test's choice).
        init(count: Int) { self.count = max(1, count) }

        fileprivate init(count: Int, granted: Int) {
            self.count = max(1, count)
            self.granted = granted
        }

        /// Gives back the share (`imgcache_hevc_workers_end`).
        func release() { if granted > 0 { imgcache_hevc_workers_end(granted) } }
    }

    /// Pixels a worker must have before a thread pays for itself: two
    /// 512 × 512 tiles, about 20 ms of libde265 (a thread costs tens of µs;
    /// a single image's CTB rows wait for the row above, two CTBs ahead).
    static let pixelsPerWorker = 2 * 512 * 512

    /// The workers `planWorkers` gives, with the CPUs shared among the
    /// decodes using threads now (`imgcache_hevc_workers_begin`, or
    /// `IMGCACHE_HEIC_THREADS`), asked for only by an image or grid big
    /// enough to use more than one: a small one starts no thread.
    func automaticWorkers() -> Workers {
        guard planWorkers(share: .max) > 1 else { return Workers(count: 1) }
        let share = imgcache_hevc_workers_begin()
        let count = planWorkers(share: share)
        return Workers(count: count, granted: share)
    }

    /// `workers(share:tiles:pixels:)` for this grid or image.
    func planWorkers(share: Int) -> Int {
        Self.workers(share: share, tiles: tiles.count, pixels: width * height)
    }

    /// As many workers as `share` allows, no more than one for each
    /// `pixelsPerWorker` of the image's `pixels`, and for a grid no more
    /// than its `tiles`; at least 1. A single image's workers are
    /// libde265's own threads, decoding rows of CTBs in parallel.
    static func workers(share: Int, tiles: Int, pixels: Int) -> Int {
        max(1, min(share, tiles == 1 ? .max : tiles, pixels / pixelsPerWorker))
    }
}
