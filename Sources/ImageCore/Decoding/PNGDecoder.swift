internal import CImageCoreShims

/// PNG through libpng's full read API (an animated PNG goes to `APNGDecoder`) (in the C shim, which keeps libpng's
/// longjmp inside C): every bit depth and colour type, tRNS, interlacing;
/// 16-bit samples scaled with rounding; no gamma correction, so the pixels
/// equal `pngtopam -alphapam | pamdepth 255`'s.
struct PNGDecoder {
    let limits: DecodingLimits

    /// Header facts (IHDR's, read by `PNGChunks.plainHeader`, or else
    /// libpng's), and every chunk's CRC checked up to IEND: what a
    /// download must pass before it is stored. The chunk walk runs first, so
    /// libpng never sees a chunk that claims more bytes than the file has.
    func inspect(_ bytes: [UInt8]) throws -> ImageInfo {
        try PNGChunks.verify(bytes)
        let info: ImageInfo
        if let (width, height) = PNGChunks.plainHeader(bytes) {
            try limits.check(width: width, height: height)
            info = ImageInfo(format: .png, width: width, height: height)
        } else {
            info = try readHeader(bytes)
        }
        return try APNGStructure.read(bytes).map { try APNGDecoder(limits: limits).info($0) } ?? info
    }

    /// Header facts only (libpng reports damage itself while decoding).
    func header(_ bytes: [UInt8]) throws -> ImageInfo {
        try PNGChunks.checkLengths(bytes)
        return try readHeader(bytes)
    }

    /// The corresponding C function is `imgcache_png_read_info` (png_read_info).
    private func readHeader(_ bytes: [UInt8]) throws -> ImageInfo {
        var info = imgcache_png_info()
        var error = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer { imgcache_png_read_info($0.baseAddress, $0.count, &info, &error) }
        guard status == 0 else { throw ImageCoreError(.image, "corrupt PNG: \(Self.text(error))") }
        try limits.check(width: Int(info.width), height: Int(info.height))
        return ImageInfo(format: .png, width: Int(info.width), height: Int(info.height))
    }

    /// The corresponding C function is `imgcache_png_decode_rgba8` (png_read_image).
    func decode(_ bytes: [UInt8]) throws -> DecodedImage {
        let info = try header(bytes)
        if let animation = try APNGStructure.read(bytes) { return try APNGDecoder(limits: limits).decode(animation) }
        var pixels = [UInt8](repeating: 0, count: info.width * info.height * 4)
        var error = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                imgcache_png_decode_rgba8(source.baseAddress, source.count, target.baseAddress, target.count, &error)
            }
        }
        guard status == 0 else { throw ImageCoreError(.image, "corrupt PNG: \(Self.text(error))") }
        return DecodedImage(format: .png, width: info.width, height: info.height, frames: [.init(pixels: pixels)])
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
