internal import CImageCoreShims

#if canImport(Glibc)
    import Glibc
#endif

/// RGBA pixels to JPEG through libjpeg's compressor (4:2:0, islow DCT,
/// alpha dropped, as image tools do when they write JPEG). The libjpeg calls
/// live in the C shim, which keeps libjpeg's longjmp inside C.
enum JPEGEncoder {
    /// The corresponding C function is `imgcache_jpeg_encode_rgba`
    /// (`jpeg_set_quality`, `jpeg_write_scanlines` into `jpeg_mem_dest`).
    static func encode(_ pixels: [UInt8], width: Int, height: Int, quality: Int) throws -> [UInt8] {
        var buffer: UnsafeMutablePointer<UInt8>?
        var size = 0
        var error = [CChar](repeating: 0, count: 256)
        let status = pixels.withUnsafeBufferPointer { source in
            imgcache_jpeg_encode_rgba(
                source.baseAddress, UInt32(width), UInt32(height), Int32(quality), &buffer, &size,
                &error)
        }
        defer { free(buffer) }
        guard status == 0, let buffer else {
            let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ImageCoreError(.failure, "JPEG encoding failed: \(message)")
        }
        return Array(UnsafeBufferPointer(start: buffer, count: size))
    }
}
