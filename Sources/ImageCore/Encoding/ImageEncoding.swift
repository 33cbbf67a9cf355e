/// Encodes `image`: every frame, its duration and the loop count when it is
/// an animation and `format` can hold one (WebP through `WebPAnimEncoder`,
/// PNG as APNG, GIF, AVIF as an image sequence, JPEG XL); JPEG gets the first frame.
/// `quality` (1–100) applies to JPEG, WebP, AVIF and JPEG XL; WebP without a
/// quality is lossless, JPEG XL at 100 too. The image's ICC profile (`colour`)
/// is embedded byte for byte (JPEG, PNG, WebP, AVIF, JPEG XL; GIF has no place for one); a colour space
/// given by numbers becomes AVIF's nclx, or an ICC profile made by Little CMS. Throws `.image`
/// if the output would break `limits`.
public func encode(
    _ image: DecodedImage, as format: OutputFormat.Encoding, quality: Int?,
    limits: DecodingLimits = .default
) throws -> [UInt8] {
    let bytes = try encodePixels(image, as: format, quality: quality, limits: limits)
    guard let colour = image.colour else { return bytes }
    if let icc = colour.icc { return try ProfileEmbedding.embed(icc, in: bytes, format: format) }
    // Primaries and transfer as numbers: an AVIF keeps them as nclx; JPEG,
    // PNG and WebP get an ICC profile made from them.
    guard format != .avif, format != .gif, format != .jxl, let primaries = colour.primaries,
        let icc = try? ColourTransform.iccProfile(for: primaries)
    else { return bytes }
    return try ProfileEmbedding.embed(icc, in: bytes, format: format)
}

/// The pixels of `image` encoded, with no profile but AVIF's.
private func encodePixels(
    _ image: DecodedImage, as format: OutputFormat.Encoding, quality: Int?, limits: DecodingLimits
) throws -> [UInt8] {
    let animated = image.frames.count > 1 && format.isAnimatable
    try CodecLibrary.require(CodecLibrary.encoding(format), to: "encode \(format.rawValue.uppercased())")
    try limits.check(width: image.width, height: image.height, frames: animated ? image.frames.count : 1)
    let pixels = image.frames[0].pixels
    switch format {
    case .jpeg: return try JPEGEncoder.encode(pixels, width: image.width, height: image.height, quality: quality ?? 85)
    case .png where animated: return try APNGEncoder.encode(image)
    case .png: return try PNGEncoder.encode(pixels, width: image.width, height: image.height)
    case .webp where animated: return try AnimatedWebPEncoder.encode(image, quality: quality)
    case .webp: return try WebPEncoder.encode(pixels, width: image.width, height: image.height, quality: quality)
    case .gif:
        return try GIFEncoder.encode(
            animated
                ? image
                : DecodedImage(
                    format: image.format, width: image.width,
                    height: image.height, frames: [image.frames[0]]))
    case .avif: return try AVIFEncoder.encode(image, quality: quality)
    case .jxl: return try JXLEncoder.encode(image, quality: quality)
    }
}
