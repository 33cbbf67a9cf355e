/// The decoder of record: sniffs the format from the bytes and hands them to
/// the decoder for that format, under one set of limits.
public struct ImageDecoder: ImageDecoding {
    /// The limits every decode is checked against.
    public let limits: DecodingLimits
    /// Whether pixels are turned upright per the EXIF orientation.
    public let appliesOrientation: Bool

    /// A decoder with `limits`.
    public init(limits: DecodingLimits = .default, appliesOrientation: Bool = true) {
        self.limits = limits
        self.appliesOrientation = appliesOrientation
    }

    public func inspect(_ bytes: [UInt8]) throws -> ImageInfo {
        switch try Self.format(of: bytes) {
        case .jpeg: try JPEGDecoder(limits: limits).inspect(bytes)
        case .png: try PNGDecoder(limits: limits).inspect(bytes)
        case .gif: try GIFDecoder(limits: limits).inspect(bytes)
        case .webp: try WebPDecoder(limits: limits).inspect(bytes)
        case .avif: try AVIFDecoder(limits: limits).inspect(bytes)
        }
    }

    public func decode(_ bytes: [UInt8], frame: Int?, scale: ScaleTarget?) throws -> DecodedImage {
        // The header is read here only when its size or orientation is needed;
        // each format's decoder reads it again anyway.
        let format = try Self.format(of: bytes)
        let orientable = appliesOrientation && (format == .jpeg || format == .webp || format == .avif)
        let info = scale != nil || orientable ? try header(bytes, format: format) : nil
        let orientation = orientable ? info?.orientation ?? 1 : 1
        let turned = EXIFOrientation.swapsDimensions(orientation)
        // Sizes are of the upright image; the decoder works in stored order.
        let target = info.flatMap { info in
            scale?.size(width: turned ? info.height : info.width, height: turned ? info.width : info.height)
        }
        let stored = target.map { turned ? (width: $0.height, height: $0.width) : $0 }
        let image = EXIFOrientation.apply(
            orientation, to: try decodeFrames(bytes, format: format, frame: frame, target: stored))
        return target.map { Self.resample(image, to: $0) } ?? image
    }

    /// Header facts without the whole-file checks `inspect` makes before storing.
    private func header(_ bytes: [UInt8], format: ImageFormat) throws -> ImageInfo {
        format == .png ? try PNGDecoder(limits: limits).header(bytes) : try inspect(bytes)
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

    private func decodeFrames(
        _ bytes: [UInt8], format: ImageFormat, frame: Int?,
        target: (width: Int, height: Int)?
    ) throws -> DecodedImage {
        let image: DecodedImage
        switch format {
        case .jpeg: image = try JPEGDecoder(limits: limits).decode(bytes, atLeast: target)
        case .png: image = try PNGDecoder(limits: limits).decode(bytes)
        case .gif: image = try GIFDecoder(limits: limits).decode(bytes)
        case .webp: image = try WebPDecoder(limits: limits).decode(bytes, target: target)
        case .avif: image = try AVIFDecoder(limits: limits).decode(bytes)
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

    private static func format(of bytes: [UInt8]) throws -> ImageFormat {
        switch ImageFormat.sniff(bytes) {
        case .supported(let format): return format
        case .unsupported(let name): throw ImageCoreError(.image, "unsupported image format (\(name))")
        case .notAnImage(let what): throw ImageCoreError(.image, what)
        }
    }
}
