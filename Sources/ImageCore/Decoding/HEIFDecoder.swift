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
        try checkHeaders(bytes)
        return try bytes.withUnsafeBufferPointer { buffer in
            let handle = try HEIFContext(buffer, limits: limits).primary
            return try handle.decode { plane in
                DecodedImage(
                    format: .heif, width: handle.width, height: handle.height,
                    frames: [DecodedImage.Frame(pixels: plane.rgba())])
            }
        }
    }

    /// A `size` thumbnail (not larger than the image): the smallest embedded
    /// thumbnail at least that size with the image's shape is decoded
    /// instead of the primary image, as libvips does, and area-averaged. An
    /// opaque image is averaged from libheif's RGB rows where they lie
    /// (`AreaResampler.resampleOpaque`), with no RGBA copy of them.
    func thumbnail(_ bytes: [UInt8], size: (width: Int, height: Int)) throws -> DecodedImage {
        try checkHeaders(bytes)
        return try bytes.withUnsafeBufferPointer { buffer in
            let context = try HEIFContext(buffer, limits: limits)
            let handle = context.thumbnail(atLeast: size) ?? context.primary
            let pixels = try handle.decode { plane in
                guard plane.channels == 3 else {
                    return AreaResampler.resample(
                        plane.rgba(), width: handle.width, height: handle.height, to: size.width, size.height)
                }
                var pixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
                pixels.withUnsafeMutableBufferPointer { output in
                    AreaResampler(from: handle.width, handle.height, to: size.width, size.height).resampleOpaque(
                        channels: 3, outX: 0..<size.width, outY: 0..<size.height, into: output.baseAddress!
                    ) { plane.row($0) }
                }
                return pixels
            }
            return DecodedImage(
                format: .heif, width: size.width, height: size.height, frames: [DecodedImage.Frame(pixels: pixels)])
        }
    }

    /// The whole-file box walk, then the primary item's `ispe` and a grid's
    /// output size against the limits: libheif reads a grid's size only
    /// when it decodes it, so it alone would allocate the canvas first.
    private func checkHeaders(_ bytes: [UInt8]) throws {
        try BoxStructure.verify(bytes, format: "HEIF")
        guard let items = HEIFItems(bytes) else { return }
        if let extent = items.spatialExtent { try limits.check(width: extent.width, height: extent.height) }
        if let grid = items.grid { try limits.check(width: grid.width, height: grid.height) }
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
        var message = [CChar](repeating: 0, count: 256)
        guard imgcache_heif_load(&message) == 0 else {
            throw ImageCoreError(
                .image,
                "unsupported image format (HEIF): \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))"
            )
        }
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
    /// libheif's buffer lives. The corresponding C function is `heif_decode_image`.
    func decode<Result>(_ body: (HEIFPlane) throws -> Result) throws -> Result {
        // Without alpha, libheif converts to RGB, as heif-convert asks for
        // an opaque image (its RGB and RGBA paths may round differently).
        let alpha = imgcache_heif_image_handle_has_alpha_channel(handle) != 0
        var decoded: OpaquePointer?
        try HEIFContext.check(imgcache_heif_decode_interleaved(handle, alpha ? 1 : 0, &decoded), "cannot decode")
        guard let image = decoded else { throw ImageCoreError(.image, "corrupt HEIF: no image decoded") }
        defer { imgcache_heif_image_release(image) }
        guard Int(imgcache_heif_image_get_width(image)) == width, Int(imgcache_heif_image_get_height(image)) == height
        else {
            throw ImageCoreError(
                .image,
                "corrupt HEIF: decoded \(imgcache_heif_image_get_width(image))×\(imgcache_heif_image_get_height(image)), "
                    + "not \(width)×\(height) as the header says")
        }
        var stride: Int32 = 0
        guard let plane = imgcache_heif_image_get_interleaved_plane(image, &stride) else {
            throw ImageCoreError(.image, "corrupt HEIF: no pixels decoded")
        }
        return try body(
            HEIFPlane(base: plane, stride: Int(stride), width: width, height: height, channels: alpha ? 4 : 3))
    }
}

/// libheif's interleaved pixels of one decoded image: RGB, or RGBA with
/// alpha; valid only inside `HEIFImageHandle.decode`.
struct HEIFPlane {
    let base: UnsafePointer<UInt8>
    let stride: Int
    let width: Int
    let height: Int
    /// 3 (RGB) or 4 (RGBA).
    let channels: Int

    func row(_ y: Int) -> UnsafePointer<UInt8> { base + y * stride }

    /// The pixels as RGBA (alpha 255 where there was none).
    func rgba() -> [UInt8] {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        pixels.withUnsafeMutableBufferPointer { target in
            for y in 0..<height {
                let source = row(y)
                let line = y * width * 4
                if channels == 4 {
                    UnsafeMutableRawPointer(target.baseAddress! + line).copyMemory(from: source, byteCount: width * 4)
                } else {
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
