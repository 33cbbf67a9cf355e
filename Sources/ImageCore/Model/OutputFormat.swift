/// What an image is written out as when not as its original bytes: the one
/// output-format type. Either re-encoded (`fetch --encode`, and the kinds
/// thumbnails are kept in) or its decoded pixels (`fetch --decode`). The
/// command line parses `Encoding` and `Pixels` as the values of those options.
public enum OutputFormat: Sendable, Hashable {
    /// A re-encoded image; an animation keeps its frames where the format can hold them.
    case encoded(Encoding)
    /// The decoded pixels.
    case pixels(Pixels)

    /// Image encodings: what `--encode` takes.
    public enum Encoding: String, Sendable, CaseIterable {
        case jpeg, png, webp, gif, avif, jxl

        /// Whether the format can hold an animation (PNG as APNG).
        public var isAnimatable: Bool { self != .jpeg }

        /// The encoding that keeps an image first stored as `format`: each
        /// format stays itself (an APNG stays APNG, an AVIF sequence AVIF, a JPEG XL JPEG XL),
        /// but HEIF, which becomes JPEG: HEVC encoding is not ours to ship.
        public static func matching(_ format: ImageFormat) -> Encoding {
            switch format {
            case .jpeg: .jpeg
            case .png: .png
            case .gif: .gif
            case .webp: .webp
            case .avif: .avif
            case .jxl: .jxl
            case .heif: .jpeg
            }
        }
    }

    /// Ways to write decoded pixels: what `--decode` takes.
    public enum Pixels: String, Sendable, CaseIterable {
        /// Netpbm PAM, RGBA (`TUPLTYPE RGB_ALPHA`), one image per frame.
        case pam
        /// Netpbm PPM, RGB with alpha dropped (as `dwebp -ppm` and `pngtopnm` do), one image per frame.
        case ppm
        /// PNG, RGBA, of the first frame (pick another with `--frame`).
        case png

        /// Whether the pixels can be written row by row as they are decoded
        /// (Netpbm), with no full frame held.
        public var isStreamable: Bool { self != .png }
    }

    /// The file name extension for `--output-dir` and kept variants.
    public var fileExtension: String {
        switch self {
        case .encoded(let encoding): encoding == .jpeg ? "jpg" : encoding.rawValue
        case .pixels(let pixels): pixels.rawValue
        }
    }
}
