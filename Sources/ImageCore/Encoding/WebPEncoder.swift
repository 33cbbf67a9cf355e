internal import CWebP

/// RGBA pixels to WebP through libwebp's simple encoding API: lossy at a
/// quality, or lossless. All libwebp encoding calls live here.
enum WebPEncoder {
    /// The corresponding C functions are `WebPEncodeRGBA`, `WebPEncodeLosslessRGBA` and `WebPFree`.
    static func encode(_ pixels: [UInt8], width: Int, height: Int, quality: Int?) throws -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        let size = pixels.withUnsafeBufferPointer { source in
            if let quality {
                WebPEncodeRGBA(
                    source.baseAddress, Int32(width), Int32(height), Int32(width * 4), Float(quality), &output)
            } else {
                WebPEncodeLosslessRGBA(source.baseAddress, Int32(width), Int32(height), Int32(width * 4), &output)
            }
        }
        defer { WebPFree(output) }
        guard size > 0, let output else { throw ImageCoreError(.failure, "WebP encoding failed") }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }
}
