/// The decoding seam: reads header facts, and decodes pixels.
///
/// Thread safety: implementations are immutable values; any method may be
/// called from any thread, concurrently. They block while the C library
/// works, so async callers run them off the cooperative pool.
public protocol ImageDecoding: Sendable {
    /// Sniffs the format and reads the header: dimensions, frame count, loop
    /// count. Throws `.image` for anything that is not a supported, sane image.
    func inspect(_ bytes: [UInt8]) throws -> ImageInfo

    /// Decodes to RGBA. `frame` picks one frame of an animation (0-based);
    /// nil decodes them all. With `scale`, every frame comes out at that
    /// size. Throws `.image` errors only.
    func decode(_ bytes: [UInt8], frame: Int?, scale: ScaleTarget?) throws -> DecodedImage

    /// Decodes every frame at full size into `sink`, as RGB (`channels` 3)
    /// or RGBA (4), one `begin` per frame; streamed row by row where the
    /// format allows, so no full frame need be held. Throws `.image` errors
    /// and whatever `sink` throws.
    func decode(_ bytes: [UInt8], channels: Int, into sink: inout some RowSink) throws

    /// Whether pixels are turned upright per the EXIF orientation.
    var appliesOrientation: Bool { get }

    /// Whether pixels with a profile are converted to sRGB (`.srgb`) or keep their values.
    var colourSpace: ColourSpace { get }

    /// This decoder with pixels oriented and converted as given: what a
    /// request's rendition asks for (`ImageRequest.render`), so the pixels
    /// are what the variant's name says.
    func with(appliesOrientation: Bool, colourSpace: ColourSpace) -> Self
}

extension ImageDecoding {
    /// Decodes at full size.
    public func decode(_ bytes: [UInt8], frame: Int?) throws -> DecodedImage {
        try decode(bytes, frame: frame, scale: nil)
    }
}
