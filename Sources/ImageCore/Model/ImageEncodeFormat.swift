/// Image encodings `fetch --encode` can write, and thumbnails are kept in.
public enum ImageEncodeFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp, gif, avif

    /// The file name extension for `--output-dir`.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// Whether the format can hold an animation (PNG as APNG).
    public var isAnimatable: Bool { self != .jpeg }

    /// The encoding that keeps an image first stored as `format`: each
    /// format stays itself (an APNG stays APNG, an AVIF sequence AVIF).
    public static func matching(_ format: ImageFormat) -> ImageEncodeFormat {
        switch format {
        case .jpeg: .jpeg
        case .png: .png
        case .gif: .gif
        case .webp: .webp
        case .avif: .avif
        }
    }
}
