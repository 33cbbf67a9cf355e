/// What a caller wants made of an image beyond its original bytes: pixels,
/// one frame, a smaller size, a re-encoding. The library derives from it the
/// name a thumbnail is kept under beside its original (`variantName`).
public struct ImageRendition: Sendable, Equatable {
    /// Decoded pixels are wanted (`--decode`).
    public var decodesPixels = false
    /// Only this frame of an animation, or nil for every frame.
    public var frame: Int?
    /// The size to scale down to, or nil for full size.
    public var scale: ScaleTarget?
    /// The re-encoding, or nil to keep the original bytes or pixels.
    public var encoding: ImageRequest.Encoding?
    /// JPEG and WebP quality (1–100), or nil for the format's default.
    public var quality: Int?
    /// Whether pixels are turned upright per the JPEG's EXIF orientation.
    public var appliesOrientation = true
    /// Whether pixels with a profile are converted to sRGB, or keep their
    /// values (and, encoded, the profile).
    public var colourSpace: ColourSpace = .original

    /// The original, unchanged.
    public init() {}

    /// Whether the result needs decoded pixels.
    public var needsPixels: Bool { decodesPixels || encoding != nil || scale != nil }

    /// The name a scaled re-encoding is kept under beside its original:
    /// every setting that shapes its bytes. Nil for anything not kept
    /// (full-size re-encodings, raw pixels).
    public var variantName: String? {
        guard let scale, let encoding else { return nil }
        let size =
            switch scale {
            case .fit(let width, let height): "thumbnail=\(width)x\(height)"
            case .maxPixels(let count): "max-pixels=\(count)"
            }
        // "frames=all": animations are kept whole (before, a thumbnail of one was a still).
        let picked = frame.map { ",frame=\($0)" } ?? ",frames=all"
        let format =
            switch encoding {
            case .format(let chosen): chosen.rawValue
            case .matchingOriginal: "original"
            }
        let quality = quality.map(String.init) ?? "default"
        // "colorspace": a variant made before profiles were kept has none, so it is never reused.
        return "\(size)\(picked),encode=\(format),quality=\(quality),orient=\(appliesOrientation ? 1 : 0)"
            + ",colorspace=\(colourSpace.rawValue)"
    }
}

extension ImageRequest {
    /// Asks for `rendition`, kept as a variant when it is one. Its
    /// orientation and colour space are the pixels' as well as the variant
    /// name's (one decision): the manager decodes with them, whatever its
    /// decoder's own settings.
    public mutating func render(_ rendition: ImageRendition) {
        decodesPixels = rendition.needsPixels
        frame = rendition.frame
        scale = rendition.scale
        encoding = rendition.encoding
        quality = rendition.quality
        appliesOrientation = rendition.appliesOrientation
        colourSpace = rendition.colourSpace
        variantName = rendition.variantName
    }
}
