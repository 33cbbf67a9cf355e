/// An image format, as sniffed from the first bytes of a file. The URL's
/// extension and the Content-Type header are never consulted.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png, gif, webp, avif, jxl
    /// HEIC (HEVC in HEIF) and other HEIF images libheif decodes.
    case heif

    /// The conventional file name extension, used for cache files and `--output-dir`.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .gif: "gif"
        case .webp: "webp"
        case .avif: "avif"
        case .jxl: "jxl"
        case .heif: "heic"
        }
    }

    /// What the first bytes of a body say it is.
    public enum Sniffed: Equatable, Sendable {
        /// One of the supported formats.
        case supported(ImageFormat)
        /// A recognised image format imgcache cannot decode (TIFF, BMP).
        case unsupported(String)
        /// Not an image (HTML, text, empty, or unknown bytes).
        case notAnImage(String)
    }

    /// How many leading bytes `sniff` looks at; a streaming caller waits for
    /// this many (or the end of the body) before asking.
    public static let sniffLength = 16

    /// Identifies the format from magic bytes.
    public static func sniff(_ bytes: some Collection<UInt8>) -> Sniffed {
        let head = Array(bytes.prefix(sniffLength))
        // Compared in place: an array made per magic number cost 5 k
        // instructions a sniff, and a cold download sniffs twice.
        func starts(_ magic: some Collection<UInt8>, at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && head[offset...].starts(with: magic)
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .supported(.jpeg) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .supported(.png) }
        if starts("GIF87a".utf8) || starts("GIF89a".utf8) { return .supported(.gif) }
        if starts("RIFF".utf8) && starts("WEBP".utf8, at: 8) { return .supported(.webp) }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .unsupported("TIFF") }
        if starts("BM".utf8) && head.count >= 6 { return .unsupported("BMP") }
        if starts("ftyp".utf8, at: 4) && head.count >= 12 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["avif", "avis"].contains(brand) { return .supported(.avif) }
            if ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"].contains(brand) {
                return .supported(.heif)
            }
        }
        // JPEG XL: a bare codestream, or the ISO-BMFF container's signature box.
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            return .supported(.jxl)
        }
        if head.isEmpty { return .notAnImage("empty body") }
        return .notAnImage(describeNonImage(head))
    }

    private static func describeNonImage(_ head: [UInt8]) -> String {
        let text = String(decoding: head, as: UTF8.self).lowercased()
            .drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\u{FEFF}" }
        if text.hasPrefix("<!doctype html") || text.hasPrefix("<html") || text.hasPrefix("<head")
            || text.hasPrefix("<body")
        {
            return "not an image (HTML page)"
        }
        if text.hasPrefix("<?xml") || text.hasPrefix("<svg") { return "not a supported image (XML/SVG)" }
        if text.hasPrefix("{") || text.hasPrefix("[") { return "not an image (JSON or text)" }
        return "not an image (unrecognised data)"
    }
}
