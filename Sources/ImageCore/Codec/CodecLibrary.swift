internal import CImageCoreShims

/// The C libraries the codecs call by their own names (`<library>_library.c`),
/// loaded here before a format's first call into them, so that a missing one
/// is the error of the image that needed it (`.image`, exit 5: this machine
/// cannot read or write that format) and the rest of the run goes on. The
/// forwarders would end the process instead, as the dynamic loader would have
/// at start. libavif, libjxl and libheif load themselves and say why they
/// could not (`require(to:loadingWith:)`).
enum CodecLibrary: CaseIterable {
    case jpeg, png, zlib, gif, webp, webpDemux, webpMux

    /// What decoding (and inspecting) `format` calls.
    static func decoding(_ format: ImageFormat) -> [CodecLibrary] {
        switch format {
        case .jpeg: [.jpeg]
        case .png: [.png, .zlib]
        case .gif: [.gif]
        case .webp: [.webp, .webpDemux]
        case .avif, .jxl, .heif: []
        }
    }

    /// What encoding `format` calls, its profile's embedding included.
    static func encoding(_ format: OutputFormat.Encoding) -> [CodecLibrary] {
        switch format {
        case .jpeg: [.jpeg]
        case .png: [.png, .zlib]
        case .gif: [.gif]
        case .webp: [.webp, .webpMux]
        case .avif, .jxl: []
        }
    }

    /// Loads each of `libraries` (once per process; later calls answer from
    /// the first). Throws `.image` naming `what` ("decode GIF") and the
    /// library, never remembered on the failed list (`isTransient`): installing
    /// the library is the cure, not waiting a day.
    /// `what` is made only for that error: a verified download asks for
    /// its format's libraries every time (2 k instructions a URL made it).
    static func require(_ libraries: [CodecLibrary], to what: @autoclosure () -> String) throws {
        for library in libraries {
            if let missing = library.loadFailure() {
                throw ImageCoreError(.image, "cannot \(what()): \(missing)", isTransient: true)
            }
        }
    }

    /// `require` for a library that loads and reports itself (libavif,
    /// libjxl, libheif: `imgcache_<name>_load`, which writes why it failed).
    static func require(to what: String, loadingWith load: (UnsafeMutablePointer<CChar>?) -> Int32) throws {
        var message = [CChar](repeating: 0, count: 256)
        guard load(&message) != 0 else { return }
        throw ImageCoreError(.image, "cannot \(what): \(text(message))", isTransient: true)
    }

    /// A C message buffer's text, up to its NUL.
    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Why the library cannot be loaded, or nil once it is.
    /// The corresponding C functions are `imgcache_<library>_library_load`.
    /// The message's buffer is on the stack: an array a call was an
    /// allocation for a library loaded long before.
    private func loadFailure() -> String? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            buffer.initialize(repeating: 0)
            let message = buffer.baseAddress
            let loaded =
                switch self {
                case .jpeg: imgcache_jpeg_library_load(message)
                case .png: imgcache_png_library_load(message)
                case .zlib: imgcache_zlib_library_load(message)
                case .gif: imgcache_gif_library_load(message)
                case .webp: imgcache_webp_library_load(message)
                case .webpDemux: imgcache_webpdemux_library_load(message)
                case .webpMux: imgcache_webpmux_library_load(message)
                }
            guard loaded != 0 else { return nil }
            return Self.text(Array(buffer))
        }
    }
}
