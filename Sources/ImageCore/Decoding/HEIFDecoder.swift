internal import CHEIF
internal import CImageCoreShims

/// HEIC and HEIF through libheif (which decodes HEVC with libde265): the
/// primary image with its transformations (`irot`, `imir`, `clap`) applied,
/// grids joined, alpha kept, 10- and 12-bit samples written as 8-bit, as
/// `heif-convert` writes an 8-bit PNG. EXIF orientation does not apply
/// (HEIF makes the boxes authoritative). A still: other top-level images
/// (bursts, depth maps) are not decoded.
///
/// Limits are checked from the headers before libheif allocates anything:
/// the primary item's `ispe` and a grid's output size (`HEIFItems`), then
/// the size libheif reports after parsing.
struct HEIFDecoder {
    let limits: DecodingLimits

    /// Header facts, after the box walk that catches truncation: what a
    /// download must pass before it is stored.
    func inspect(_ bytes: [UInt8]) throws -> ImageInfo {
        try checkHeaders(bytes)
        return try bytes.withUnsafeBufferPointer { try HEIFContext($0, limits: limits).info }
    }

    /// The primary image, upright.
    func decode(_ bytes: [UInt8]) throws -> DecodedImage {
        let grid = try checkHeaders(bytes)?.primaryType == "grid"
        return try bytes.withUnsafeBufferPointer { buffer in
            let context = try HEIFContext(buffer, limits: limits)
            let handle = context.primary
            return try context.sharingCPUs(if: grid) {
                try handle.decode { plane in
                    DecodedImage(
                        format: .heif, width: handle.width, height: handle.height,
                        frames: [DecodedImage.Frame(pixels: plane.rgba())])
                }
            }
        }
    }

    /// A `size` thumbnail (not larger than the image): the smallest embedded
    /// thumbnail at least that size with the image's shape is decoded
    /// instead of the primary image, as libvips does, and area-averaged. An
    /// opaque image is averaged from libheif's R, G and B planes (or RGB
    /// rows) where they lie (`AreaResampler.resamplePlanar`,
    /// `resampleOpaque`), with no RGBA copy of them. An 8-bit HEVC image or
    /// grid without alpha or `clap` skips libheif: `HEVCThumbnail` shrinks
    /// libde265's Y, Cb and Cr planes and converts only the thumbnail.
    func thumbnail(_ bytes: [UInt8], size: (width: Int, height: Int)) throws -> DecodedImage {
        let items = try checkHeaders(bytes)
        if let items, let plan = HEVCThumbnail(bytes, items: items, size: size),
            let pixels = plan.thumbnail(bytes, size: size)
        {
            return DecodedImage(
                format: .heif, width: size.width, height: size.height, frames: [DecodedImage.Frame(pixels: pixels)])
        }
        return try bytes.withUnsafeBufferPointer { buffer in
            let context = try HEIFContext(buffer, limits: limits)
            let embedded = context.thumbnail(atLeast: size)
            let handle = embedded ?? context.primary
            let grid = embedded == nil && items?.primaryType == "grid"
            let pixels = try context.sharingCPUs(if: grid) { try handle.decode { shrink($0, handle, to: size) } }
            return DecodedImage(
                format: .heif, width: size.width, height: size.height, frames: [DecodedImage.Frame(pixels: pixels)])
        }
    }

    /// libheif's pixels of `handle` averaged to `size`: from its R, G and
    /// B planes or RGB rows where they lie, an image with alpha from RGBA.
    private func shrink(_ plane: HEIFPlane, _ handle: HEIFImageHandle, to size: (width: Int, height: Int)) -> [UInt8] {
        guard plane.channels == 3 else {
            return AreaResampler.resample(
                plane.rgba(), width: handle.width, height: handle.height, to: size.width, size.height)
        }
        var pixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
        let resampler = AreaResampler(from: handle.width, handle.height, to: size.width, size.height)
        pixels.withUnsafeMutableBufferPointer { output in
            if plane.isPlanar {
                resampler.resamplePlanar(outX: 0..<size.width, outY: 0..<size.height, into: output.baseAddress!) {
                    plane.row($1, plane: $0)
                }
            } else {
                resampler.resampleOpaque(
                    channels: 3, outX: 0..<size.width, outY: 0..<size.height, into: output.baseAddress!
                ) { plane.row($0) }
            }
        }
        return pixels
    }

    /// The whole-file box walk, then the primary item's `ispe` and a grid's
    /// output size against the limits: libheif reads a grid's size only
    /// when it decodes it, so it alone would allocate the canvas first.
    @discardableResult
    private func checkHeaders(_ bytes: [UInt8]) throws -> HEIFItems? {
        try BoxStructure.verify(bytes, format: "HEIF")
        guard let items = HEIFItems(bytes) else { return nil }
        if let extent = items.spatialExtent { try limits.check(width: extent.width, height: extent.height) }
        if let grid = items.grid { try limits.check(width: grid.width, height: grid.height) }
        return items
    }
}

/// Owns one `heif_context` that has parsed a buffer
/// (`heif_context_alloc`, `heif_context_read_from_memory_without_copy`;
/// freed with `heif_context_free`) and its primary image handle. The buffer
/// must outlive the context.
final class HEIFContext {
    private let context: OpaquePointer
    /// The primary image (`heif_context_get_primary_image_handle`).
    let primary: HEIFImageHandle
    /// What the headers say, checked against the limits.
    let info: ImageInfo
    private let limits: DecodingLimits

    init(_ buffer: UnsafeBufferPointer<UInt8>, limits: DecodingLimits) throws {
        try CodecLibrary.require(to: "decode HEIF", loadingWith: imgcache_heif_load)
        guard let context = imgcache_heif_context_alloc() else {
            throw ImageCoreError(.failure, "cannot create a HEIF decoder")
        }
        let primary: HEIFImageHandle
        do {
            try Self.check(
                imgcache_heif_context_read_from_memory_without_copy(context, buffer.baseAddress, buffer.count),
                "cannot parse")
            var handle: OpaquePointer?
            try Self.check(imgcache_heif_context_get_primary_image_handle(context, &handle), "no primary image")
            guard let handle else { throw ImageCoreError(.image, "corrupt HEIF: no primary image") }
            primary = HEIFImageHandle(handle)
            try limits.check(width: primary.width, height: primary.height)
        } catch {
            // An initialiser that throws before every property is set runs no
            // deinit: the context would leak (LeakSanitizer, the fuzz seeds).
            imgcache_heif_context_free(context)
            throw error
        }
        self.context = context
        self.limits = limits
        self.primary = primary
        info = ImageInfo(format: .heif, width: primary.width, height: primary.height)
    }

    deinit { imgcache_heif_context_free(context) }

    /// Runs `body` (a decode of this context's images) with libheif
    /// allowed the CPUs' share for a grid's tiles, when `grid`: libheif
    /// 1.15 decodes them on a thread each, four at a time by default, so a
    /// 2-CPU machine ran four and a 16-CPU one four. The corresponding C
    /// function is `heif_context_set_max_decoding_threads`.
    func sharingCPUs<Result>(if grid: Bool, _ body: () throws -> Result) rethrows -> Result {
        guard grid else { return try body() }
        let threads = imgcache_heif_tile_threads_begin(context)
        defer { imgcache_heif_tile_threads_end(threads) }
        return try body()
    }

    /// The smallest embedded thumbnail at least `size` (both sides) whose
    /// shape is the primary image's within a pixel, so that scaling it gives
    /// the same picture; nil if none is.
    func thumbnail(atLeast size: (width: Int, height: Int)) -> HEIFImageHandle? {
        let count = Int(imgcache_heif_image_handle_get_number_of_thumbnails(primary.handle))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(imgcache_heif_image_handle_get_list_of_thumbnail_IDs(primary.handle, &ids, Int32(count)))
        var best: HEIFImageHandle?
        for id in ids.prefix(listed) {
            var handle: OpaquePointer?
            guard imgcache_heif_image_handle_get_thumbnail(primary.handle, id, &handle).code == heif_error_Ok,
                let handle
            else { continue }
            let thumbnail = HEIFImageHandle(handle)
            let sameShape =
                abs(thumbnail.width * primary.height - thumbnail.height * primary.width)
                <= max(primary.width, primary.height)
            guard thumbnail.width >= size.width, thumbnail.height >= size.height, sameShape,
                (try? limits.check(width: thumbnail.width, height: thumbnail.height)) != nil,
                best.map({ thumbnail.width < $0.width }) ?? true
            else { continue }
            best = thumbnail
        }
        return best
    }

    /// Throws the libheif error, if `error` is one, as an `.image` error.
    static func check(_ error: heif_error, _ what: String) throws {
        guard error.code != heif_error_Ok else { return }
        let detail = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        if error.subcode == heif_suberror_Security_limit_exceeded {
            throw ImageCoreError.over(.pixels, "image too large (HEIF): \(detail)")
        }
        if error.code == heif_error_Unsupported_feature || error.code == heif_error_Unsupported_filetype {
            throw ImageCoreError(.image, "unsupported HEIF: \(what) (\(detail))")
        }
        throw ImageCoreError(.image, "corrupt HEIF: \(what) (\(detail))")
    }
}

/// Owns one `heif_image_handle` (released with `heif_image_handle_release`).
final class HEIFImageHandle {
    let handle: OpaquePointer
    /// Size after the transformations (`heif_image_handle_get_width`).
    let width: Int
    let height: Int

    init(_ handle: OpaquePointer) {
        self.handle = handle
        width = Int(imgcache_heif_image_handle_get_width(handle))
        height = Int(imgcache_heif_image_handle_get_height(handle))
    }

    deinit { imgcache_heif_image_handle_release(handle) }

    /// The image decoded, transformations applied, handed to `body` while
    /// libheif's buffer lives: three planes (R, G, B) for an opaque 8-bit
    /// image, as libheif 1.15 makes them before any interleaving (which
    /// would copy every pixel once more: 432 M of a 12 MP HEIC's 8.9 G
    /// instructions); else interleaved RGB, or RGBA with alpha. The
    /// corresponding C function is `heif_decode_image`.
    func decode<Result>(_ body: (HEIFPlane) throws -> Result) throws -> Result {
        // Without alpha, libheif converts to RGB, as heif-convert asks for
        // an opaque image (its RGB and RGBA paths may round differently).
        let alpha = imgcache_heif_image_handle_has_alpha_channel(handle) != 0
        let planar = !alpha && imgcache_heif_image_handle_get_luma_bits_per_pixel(handle) == 8
        var decoded: OpaquePointer?
        let layout =
            alpha ? imgcache_heif_layout_rgba : planar ? imgcache_heif_layout_planar_rgb : imgcache_heif_layout_rgb
        try HEIFContext.check(imgcache_heif_decode(handle, layout, &decoded), "cannot decode")
        guard let image = decoded else { throw ImageCoreError(.image, "corrupt HEIF: no image decoded") }
        defer { imgcache_heif_image_release(image) }
        if planar {
            var planes: [(UnsafePointer<UInt8>, Int)] = []
            for channel in [heif_channel_R, heif_channel_G, heif_channel_B] {
                var stride: Int32 = 0, planeWidth: Int32 = 0, planeHeight: Int32 = 0, bits: Int32 = 0
                guard
                    let plane = imgcache_heif_image_get_plane(
                        image, channel, &stride, &planeWidth, &planeHeight, &bits)
                else { throw ImageCoreError(.image, "corrupt HEIF: no pixels decoded") }
                try checkSize(Int(planeWidth), Int(planeHeight))
                // A chroma-only depth the header did not announce: not a layout this path reads.
                guard bits == 8 else { throw ImageCoreError(.image, "unsupported HEIF: \(bits)-bit samples") }
                planes.append((plane, Int(stride)))
            }
            return try body(HEIFPlane(planes: planes, width: width, height: height, channels: 3))
        }
        try checkSize(Int(imgcache_heif_image_get_width(image)), Int(imgcache_heif_image_get_height(image)))
        var stride: Int32 = 0
        guard let plane = imgcache_heif_image_get_interleaved_plane(image, &stride) else {
            throw ImageCoreError(.image, "corrupt HEIF: no pixels decoded")
        }
        return try body(
            HEIFPlane(planes: [(plane, Int(stride))], width: width, height: height, channels: alpha ? 4 : 3))
    }

    /// Throws unless the decoded size is the header's.
    private func checkSize(_ decodedWidth: Int, _ decodedHeight: Int) throws {
        guard decodedWidth == width, decodedHeight == height else {
            throw ImageCoreError(
                .image,
                "corrupt HEIF: decoded \(decodedWidth)×\(decodedHeight), not \(width)×\(height) as the header says")
        }
    }
}

/// libheif's pixels of one decoded image, valid only inside
/// `HEIFImageHandle.decode`: interleaved RGB or RGBA rows, or three planes
/// (R, G, B) of 8-bit samples (`isPlanar`).
struct HEIFPlane {
    /// One interleaved plane, or the R, G and B planes, each with its row stride.
    let planes: [(base: UnsafePointer<UInt8>, stride: Int)]
    let width: Int
    let height: Int
    /// 3 (RGB) or 4 (RGBA).
    let channels: Int

    var isPlanar: Bool { planes.count == 3 }

    /// Row `y` of `plane` (0 when interleaved; 0, 1, 2 for R, G, B).
    func row(_ y: Int, plane: Int = 0) -> UnsafePointer<UInt8> { planes[plane].base + y * planes[plane].stride }

    /// The pixels as RGBA (alpha 255 where there was none).
    func rgba() -> [UInt8] {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        pixels.withUnsafeMutableBufferPointer { target in
            for y in 0..<height {
                let line = y * width * 4
                if isPlanar {
                    let (red, green, blue) = (row(y, plane: 0), row(y, plane: 1), row(y, plane: 2))
                    for column in 0..<width {
                        target[line + column * 4] = red[column]
                        target[line + column * 4 + 1] = green[column]
                        target[line + column * 4 + 2] = blue[column]
                    }
                } else if channels == 4 {
                    UnsafeMutableRawPointer(target.baseAddress! + line).copyMemory(from: row(y), byteCount: width * 4)
                } else {
                    let source = row(y)
                    for column in 0..<width {
                        target[line + column * 4] = source[column * 3]
                        target[line + column * 4 + 1] = source[column * 3 + 1]
                        target[line + column * 4 + 2] = source[column * 3 + 2]
                    }
                }
            }
        }
        return pixels
    }
}
