/// The decoder of record: sniffs the format from the bytes and hands them to
/// the decoder for that format, under one set of limits.
public struct ImageDecoder: ImageDecoding {
    /// The limits every decode is checked against.
    public let limits: DecodingLimits
    /// Whether pixels are turned upright per the EXIF orientation.
    public let appliesOrientation: Bool
    /// `.srgb`: pixels of an image with a profile are converted to sRGB
    /// through it (a CMYK JPEG's too), and the image carries no profile.
    /// `.original`: pixels as stored, the profile attached (`DecodedImage.colour`).
    public let colourSpace: ColourSpace
    /// Where an ignored profile is reported (`-v`).
    public let notes: EventLog

    /// A decoder with `limits`.
    public init(
        limits: DecodingLimits = .default, appliesOrientation: Bool = true, colourSpace: ColourSpace = .original,
        notes: EventLog = .silent
    ) {
        self.limits = limits
        self.appliesOrientation = appliesOrientation
        self.colourSpace = colourSpace
        self.notes = notes
    }

    public func with(appliesOrientation: Bool, colourSpace: ColourSpace) -> ImageDecoder {
        ImageDecoder(limits: limits, appliesOrientation: appliesOrientation, colourSpace: colourSpace, notes: notes)
    }

    public func inspect(_ bytes: [UInt8]) throws -> ImageInfo {
        switch try Self.format(of: bytes) {
        case .jpeg: try JPEGDecoder(limits: limits).inspect(bytes)
        case .png: try PNGDecoder(limits: limits).inspect(bytes)
        case .gif: try GIFDecoder(limits: limits).inspect(bytes)
        case .webp: try WebPDecoder(limits: limits).inspect(bytes)
        case .avif: try AVIFDecoder(limits: limits).inspect(bytes)
        case .jxl: try JXLDecoder(limits: limits).inspect(bytes)
        case .heif: try HEIFDecoder(limits: limits).inspect(bytes)
        }
    }

    public func decode(_ bytes: [UInt8], frame: Int?, scale: ScaleTarget?) throws -> DecodedImage {
        let format = try Self.format(of: bytes)
        let colour = profile(of: bytes, format: format)
        var image = try decodeAsStored(bytes, format: format, frame: frame, scale: scale, cmykProfile: colour.cmyk)
        image.colour = colour.rgb
        // After scaling: a thumbnail converts its few pixels, not the original's.
        if colourSpace == .srgb { SRGBConversion.convert(&image, notes: notes) }
        return image
    }

    /// The image's profile, split by the pixels it applies to: an RGB
    /// profile for the decoded RGB, a CMYK one for a CMYK JPEG's ink values.
    /// A CMYK or gray profile is used only to convert to sRGB: decoded
    /// pixels are RGB, which such a profile cannot describe in an output.
    func profile(of bytes: [UInt8], format: ImageFormat) -> (rgb: ColourProfile?, cmyk: ColourProfile?) {
        let found = Self.declaredProfile(of: bytes, format: format, as: .pixels)
        if case .ignored(let why) = found { notes.emit("colour: \(why)") }
        guard let profile = found.profile else { return (nil, nil) }
        switch EmbeddedProfile.iccColourSpace(profile) {
        case "CMYK": return (nil, colourSpace == .srgb && format == .jpeg ? profile : nil)
        case "GRAY": return (colourSpace == .srgb ? profile : nil, nil)
        default: return (profile, nil)
        }
    }

    /// Decodes, orients and scales, leaving the colours as stored (but for
    /// a CMYK JPEG with `cmykProfile`).
    private func decodeAsStored(
        _ bytes: [UInt8], format: ImageFormat, frame: Int?, scale: ScaleTarget?, cmykProfile: ColourProfile?
    ) throws -> DecodedImage {
        // The header is read here only when its size or orientation is needed;
        // each format's decoder reads it again anyway.
        let orientable = appliesOrientation && (format == .jpeg || format == .webp || format == .avif)
        let info = scale != nil || orientable ? try header(bytes, format: format) : nil
        let orientation = orientable ? info?.orientation ?? 1 : 1
        let turned = EXIFOrientation.swapsDimensions(orientation)
        // Sizes are of the upright image; the decoder works in stored order.
        let target = info.flatMap { info in
            scale?.size(width: turned ? info.height : info.width, height: turned ? info.width : info.height)
        }
        let stored = target.map { turned ? (width: $0.height, height: $0.width) : $0 }
        // A JPEG XL's header tells an animation by its loop count (its frames are not counted);
        // a PNG's (IHDR) tells nothing, and decodeScaledFrames is nil for one without acTL:
        // an APNG was decoded whole and every frame resampled whole, 192 M instructions
        // of a 56-frame one's 64 px thumbnail where the changed rectangles cost 4 M.
        let animated = info.map {
            $0.frameCount > 1 || format == .gif || format == .png || (format == .jxl && $0.loopCount != nil)
        }
        if let target, frame == nil, orientation == 1, animated == true,
            let image = try decodeScaledFrames(bytes, format: format, to: target)
        {
            return image
        }
        let image = EXIFOrientation.apply(
            orientation,
            to: try decodeFrames(bytes, format: format, frame: frame, target: stored, cmykProfile: cmykProfile))
        return target.map { Self.resample(image, to: $0) } ?? image
    }

    /// Header facts without the whole-file checks `inspect` makes before storing.
    private func header(_ bytes: [UInt8], format: ImageFormat) throws -> ImageInfo {
        switch format {
        case .png: try PNGDecoder(limits: limits).header(bytes)
        case .jxl: try JXLDecoder(limits: limits).header(bytes)
        default: try inspect(bytes)
        }
    }

    /// The colour space `bytes` declare, read from the headers (for a JPEG
    /// XL, through libjxl: `.pixels` is the space its pixels decode to, which
    /// for a lossy one can differ from the one `.declared`).
    static func declaredProfile(
        of bytes: [UInt8], format: ImageFormat, as target: JXLColour.Target
    )
        -> EmbeddedProfile.Found
    {
        format == .jxl ? JXLColour.read(bytes, target: target) : EmbeddedProfile.read(bytes, format: format)
    }

    /// Every frame of `image` area-averaged down to `size`.
    static func resample(_ image: DecodedImage, to size: (width: Int, height: Int)) -> DecodedImage {
        guard size != (image.width, image.height) else { return image }
        var scaled = image
        scaled.width = size.width
        scaled.height = size.height
        scaled.frames = image.frames.map { frame in
            var frame = frame
            frame.pixels = AreaResampler.resample(
                frame.pixels, width: image.width, height: image.height,
                to: size.width, size.height)
            return frame
        }
        return scaled
    }

    /// Every frame of an animation (or a GIF), scaled to `size` as it is
    /// decoded (`ScaledFrames`): one full-size canvas in memory, not every
    /// frame, and only what changed from frame to frame resampled. Nil for
    /// an image that is no animation after all (a PNG without acTL, a still WebP).
    private func decodeScaledFrames(
        _ bytes: [UInt8], format: ImageFormat, to size: (width: Int, height: Int)
    ) throws -> DecodedImage? {
        var sink = ScaledFrames(FrameCollector(), width: size.width, height: size.height)
        switch format {
        case .gif: try GIFDecoder(limits: limits).decode(bytes, into: &sink)
        case .png:
            guard let animation = try APNGStructure.read(bytes) else { return nil }
            try APNGDecoder(limits: limits).decode(animation, into: &sink)
        case .webp: guard try WebPDecoder(limits: limits).decodeAnimation(bytes, into: &sink) else { return nil }
        case .avif: try AVIFDecoder(limits: limits).decode(bytes, into: &sink)
        case .jxl: try JXLDecoder(limits: limits).decode(bytes, into: &sink)
        default: return nil
        }
        return sink.next.image(format)
    }

    private func decodeFrames(
        _ bytes: [UInt8], format: ImageFormat, frame: Int?,
        target: (width: Int, height: Int)?, cmykProfile: ColourProfile?
    ) throws -> DecodedImage {
        let image: DecodedImage
        switch format {
        case .jpeg:
            let decoder = JPEGDecoder(limits: limits, cmykProfile: cmykProfile, notes: notes)
            image = try target.map { try decoder.thumbnail(bytes, size: $0) } ?? decoder.decode(bytes)
        case .png: image = try PNGDecoder(limits: limits).decode(bytes)
        case .gif: image = try GIFDecoder(limits: limits).decode(bytes)
        case .webp: image = try WebPDecoder(limits: limits).decode(bytes, target: target)
        case .avif: image = try AVIFDecoder(limits: limits).decode(bytes)
        case .jxl:
            let decoder = JXLDecoder(limits: limits)
            image = try target.flatMap { try decoder.thumbnail(bytes, size: $0) } ?? decoder.decode(bytes)
        case .heif:
            let decoder = HEIFDecoder(limits: limits)
            image = try target.map { try decoder.thumbnail(bytes, size: $0) } ?? decoder.decode(bytes)
        }
        guard let frame else { return image }
        guard frame < image.frames.count else {
            throw ImageCoreError(
                .image,
                "frame \(frame) out of range (image has \(image.frames.count) frame\(image.frames.count == 1 ? "" : "s"))"
            )
        }
        var single = image
        single.frames = [image.frames[frame]]
        return single
    }

    /// The format `bytes` are in, once the libraries its decoder calls are
    /// loaded (a missing one is this image's `.image` error, not the end of
    /// the process: `CodecLibrary`).
    static func format(of bytes: [UInt8]) throws -> ImageFormat {
        switch ImageFormat.sniff(bytes) {
        case .supported(let format):
            try CodecLibrary.require(CodecLibrary.decoding(format), to: "decode \(format.rawValue.uppercased())")
            return format
        case .unsupported(let name): throw ImageCoreError(.image, "unsupported image format (\(name))")
        case .notAnImage(let what): throw ImageCoreError(.image, what)
        }
    }
}
