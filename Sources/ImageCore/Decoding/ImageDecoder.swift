/// The decoder of record: sniffs the format from the bytes and hands them to
/// the decoder for that format, under one set of limits.
public struct ImageDecoder: ImageDecoding {
    /// The limits every decode is checked against.
    public let limits: DecodingLimits

    /// A decoder with `limits`.
    public init(limits: DecodingLimits = .default) {
        self.limits = limits
    }

    public func inspect(_ bytes: [UInt8]) throws -> ImageInfo {
        switch try Self.format(of: bytes) {
        case .jpeg: try JPEGDecoder(limits: limits).inspect(bytes)
        case .png: try PNGDecoder(limits: limits).inspect(bytes)
        case .gif: try GIFDecoder(limits: limits).inspect(bytes)
        case .webp: try WebPDecoder(limits: limits).inspect(bytes)
        }
    }

    public func decode(_ bytes: [UInt8], frame: Int?) throws -> DecodedImage {
        let image: DecodedImage
        switch try Self.format(of: bytes) {
        case .jpeg: image = try JPEGDecoder(limits: limits).decode(bytes)
        case .png: image = try PNGDecoder(limits: limits).decode(bytes)
        case .gif: image = try GIFDecoder(limits: limits).decode(bytes)
        case .webp: image = try WebPDecoder(limits: limits).decode(bytes)
        }
        guard let frame else { return image }
        guard frame < image.frames.count else {
            throw ImageCoreError(.image, "frame \(frame) out of range (image has \(image.frames.count) frame\(image.frames.count == 1 ? "" : "s"))")
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
