internal import CImageCoreShims

/// The `Accept` header a request sends unless `-H` sets one: the formats
/// the decoders present read, smallest files first, so an image CDN that
/// negotiates by `Accept` (imgix `auto=format`, Cloudinary `f_auto`,
/// Cloudflare) sends its smallest file; anything else at `q=0.5`, so a
/// server with one kind still answers. HEIF is not named: no browser asks
/// for it, and a CDN would send its HEVC where it holds a smaller file too.
enum AcceptHeader {
    /// The value for this process, worked out on the first request (a
    /// warm hit sends none, so asks nothing).
    static let value = value(decoding: isDecodable)

    /// The media types in order of preference, each with the format that must decode it.
    static let preference: [(type: String, format: ImageFormat)] = [
        ("image/avif", .avif), ("image/jxl", .jxl), ("image/webp", .webp), ("image/png", .png), ("image/jpeg", .jpeg),
        ("image/gif", .gif),
    ]

    /// The header naming every format `isDecodable` accepts.
    static func value(decoding isDecodable: (ImageFormat) -> Bool) -> String {
        (preference.filter { isDecodable($0.format) }.map(\.type) + ["*/*;q=0.5"]).joined(separator: ",")
    }

    /// Whether this process can decode `format`: a library loaded on first
    /// use (libavif, libheif) counts when the dynamic loader would find it;
    /// a linked one always does.
    static func isDecodable(_ format: ImageFormat) -> Bool {
        switch format {
        case .avif: SharedLibraryPresence.isInstalled(String(cString: imgcache_avif_soname()))
        case .jxl: SharedLibraryPresence.isInstalled(String(cString: imgcache_jxl_soname()))
        case .heif: SharedLibraryPresence.isInstalled(String(cString: imgcache_heif_soname()))
        case .jpeg, .png, .gif, .webp: true
        }
    }
}
