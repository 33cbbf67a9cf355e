/// How decoded pixels are written out (`fetch --decode`).
public enum PixelOutputFormat: String, Sendable, CaseIterable {
    /// Netpbm PAM, RGBA (`TUPLTYPE RGB_ALPHA`), one image per frame.
    case pam
    /// Netpbm PPM, RGB with alpha dropped (as `dwebp -ppm` and `pngtopnm` do), one image per frame.
    case ppm
    /// PNG, RGBA, of the first frame (pick another with `--frame`).
    case png

    /// The file name extension for `--output-dir`.
    public var fileExtension: String { rawValue }
}

/// Encodes decoded pixels in `format`. Animations become a stream of
/// images, one per composited frame, for PAM and PPM.
public func encode(_ image: DecodedImage, as format: PixelOutputFormat) throws -> [UInt8] {
    switch format {
    case .pam: NetpbmWriter.pam(image)
    case .ppm: NetpbmWriter.ppm(image)
    case .png: try PNGEncoder.encode(image.frames[0].pixels, width: image.width, height: image.height)
    }
}
