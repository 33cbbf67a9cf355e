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
