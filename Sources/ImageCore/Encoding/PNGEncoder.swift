internal import CPNG

/// PNG output through libpng's simplified write API, which reports errors in
/// its `png_image` struct instead of jumping.
enum PNGEncoder {
    /// Encodes 8-bit RGBA pixels. The corresponding C function is `png_image_write_to_memory`.
    static func encode(_ pixels: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        // PNG_FORMAT_RGBA is a composed macro Swift does not import.
        image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
        var size: png_alloc_size_t = 0
        // The first call only measures; the second writes.
        let measured = pixels.withUnsafeBytes { source in
            png_image_write_to_memory(&image, nil, &size, 0, source.baseAddress, 0, nil)
        }
        guard measured != 0, size > 0 else { throw failure(image) }
        var out = [UInt8](repeating: 0, count: Int(size))
        let written = out.withUnsafeMutableBytes { target in
            pixels.withUnsafeBytes { source in
                png_image_write_to_memory(&image, target.baseAddress, &size, 0, source.baseAddress, 0, nil)
            }
        }
        guard written != 0 else { throw failure(image) }
        return Array(out.prefix(Int(size)))
    }

    private static func failure(_ image: png_image) -> ImageCoreError {
        let message = withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return ImageCoreError(.failure, "cannot encode PNG: \(message)")
    }
}
