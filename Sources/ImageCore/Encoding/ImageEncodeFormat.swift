/// Image encodings `fetch --encode` can write (of the first frame).
public enum ImageEncodeFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp

    /// The file name extension for `--output-dir`.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// The encoding that best keeps an image first stored as `format`:
    /// JPEG stays JPEG, WebP stays WebP, PNG and GIF become PNG.
    public static func matching(_ format: ImageFormat) -> ImageEncodeFormat {
        switch format {
        case .jpeg: .jpeg
        case .webp: .webp
        case .png, .gif, .avif: .png
        }
    }
}

/// Encodes the first frame of `image`. `quality` (1–100) applies to JPEG and
/// WebP; WebP without a quality is lossless.
public func encode(_ image: DecodedImage, as format: ImageEncodeFormat, quality: Int?) throws -> [UInt8] {
    let pixels = image.frames[0].pixels
    switch format {
    case .jpeg: return try JPEGEncoder.encode(pixels, width: image.width, height: image.height, quality: quality ?? 85)
    case .png: return try PNGEncoder.encode(pixels, width: image.width, height: image.height)
    case .webp: return try WebPEncoder.encode(pixels, width: image.width, height: image.height, quality: quality)
    }
}
