// Public: the exercise functions take ImageCore types, and these files are
// also compiled into ImageCoreTests (symlinked), where imports default to internal.
@testable public import ImageCore

/// What one image input exercises: the format sniffer, the format's own
/// decoder (the structural check `ImageManager` makes before storing, then a
/// full decode), and `ImageDecoder`'s scaled path (thumbnail or pixel cap,
/// EXIF orientation, area resampling) as `imgcache fetch --thumbnail` runs it.
public enum ImageInputs {
    /// `DecodingLimits.default` with the pixel caps scaled down so that one
    /// input's worst case (every frame a full RGBA canvas, plus a resampled
    /// copy) stays well inside libFuzzer's `-rss_limit_mb=2048` and
    /// `-timeout=10`; the frame and scan limits are the defaults. The checks
    /// are the same code, only the numbers are smaller.
    public static let limits: DecodingLimits = {
        var limits = DecodingLimits.default
        limits.maxPixels = 4_000_000
        limits.maxTotalPixels = 32_000_000
        return limits
    }()

    /// Runs `bytes` through every entry point for `format`. Traps (so
    /// libFuzzer reports a finding) if any of them throws anything but an
    /// `.image` `ImageCoreError`.
    public static func exercise(_ bytes: [UInt8], as format: ImageFormat) {
        _ = ImageFormat.sniff(bytes)
        let stored = expectImageError { try inspect(bytes, as: format) }
        expectImageError { _ = try decode(bytes, as: format) }
        let decoder = ImageDecoder(limits: limits)
        // Which scale depends on the input, so the corpus reaches both.
        let scale: ScaleTarget = bytes.count % 2 == 0 ? .fit(width: 33, height: 17) : .maxPixels(600)
        let thumbnail = expectImageError { try decoder.decode(bytes, frame: 0, scale: scale) }
        // The streamed path `fetch --decode ppm|pam` takes: rows as they are decoded.
        var rows = RowCounter()
        if expectImageError({ try decoder.decode(bytes, channels: bytes.count % 3 == 0 ? 4 : 3, into: &rows) }) != nil {
            precondition(rows.isWhole, "streamed rows do not fill the image: \(rows)")
        }
        if let stored, let thumbnail {
            let expected = scale.size(width: stored.orientation >= 5 ? stored.height : stored.width,
                                      height: stored.orientation >= 5 ? stored.width : stored.height)
            precondition(thumbnail.width == expected.width && thumbnail.height == expected.height,
                         "thumbnail is \(thumbnail.width)×\(thumbnail.height), expected \(expected)")
            for frame in thumbnail.frames {
                precondition(frame.pixels.count == thumbnail.width * thumbnail.height * 4, "frame size mismatch")
            }
        }
    }

    /// The format decoder's `inspect`: what a download must pass to be stored.
    static func inspect(_ bytes: [UInt8], as format: ImageFormat) throws -> ImageInfo {
        switch format {
        case .jpeg: try JPEGDecoder(limits: limits).inspect(bytes)
        case .png: try PNGDecoder(limits: limits).inspect(bytes)
        case .gif: try GIFDecoder(limits: limits).inspect(bytes)
        case .webp: try WebPDecoder(limits: limits).inspect(bytes)
        case .avif: try AVIFDecoder(limits: limits).inspect(bytes)
        case .jxl: try JXLDecoder(limits: limits).inspect(bytes)
        case .heif: try HEIFDecoder(limits: limits).inspect(bytes)
        }
    }

    /// The format decoder's full-size decode, every frame.
    static func decode(_ bytes: [UInt8], as format: ImageFormat) throws -> DecodedImage {
        let image: DecodedImage
        switch format {
        case .jpeg: image = try JPEGDecoder(limits: limits).decode(bytes)
        case .png: image = try PNGDecoder(limits: limits).decode(bytes)
        case .gif: image = try GIFDecoder(limits: limits).decode(bytes)
        case .webp: image = try WebPDecoder(limits: limits).decode(bytes)
        case .avif: image = try AVIFDecoder(limits: limits).decode(bytes)
        case .jxl: image = try JXLDecoder(limits: limits).decode(bytes)
        case .heif: image = try HEIFDecoder(limits: limits).decode(bytes)
        }
        for frame in image.frames {
            precondition(frame.pixels.count == image.width * image.height * 4, "frame size mismatch")
        }
        return image
    }
}

/// Checks what a streamed decode delivers: after each `begin`, whole rows
/// only, and never more than the image's height of them.
struct RowCounter: RowSink {
    var rowBytes = 0
    var expected = 0
    var received = 0

    /// Whether the last image received every row (true before any image).
    var isWhole: Bool { received == expected }

    mutating func begin(width: Int, height: Int, channels: Int) throws {
        precondition(received == expected, "an image ended after \(received) of \(expected) bytes")
        precondition(width > 0 && height > 0 && (channels == 3 || channels == 4), "bad begin \(width)×\(height)×\(channels)")
        (rowBytes, expected, received) = (width * channels, width * height * channels, 0)
    }

    mutating func write(rows: UnsafeRawBufferPointer) throws {
        precondition(rowBytes > 0 && rows.count % rowBytes == 0, "\(rows.count) bytes are not whole rows")
        received += rows.count
        precondition(received <= expected, "more rows than the image has")
    }
}

/// The result of `body`, or nil if it threw a clean `.image` error; any
/// other error is a finding.
@discardableResult
func expectImageError<T>(_ body: () throws -> T) -> T? {
    do {
        return try body()
    } catch let error as ImageCoreError {
        precondition(error.kind == .image, "unexpected error kind \(error.kind): \(error.message)")
        return nil
    } catch {
        preconditionFailure("not an ImageCoreError: \(error)")
    }
}
