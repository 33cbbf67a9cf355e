internal import CHEIF
internal import CImageCoreShims

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
