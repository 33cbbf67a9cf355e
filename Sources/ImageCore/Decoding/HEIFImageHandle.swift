internal import CHEIF
internal import CImageCoreShims

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
