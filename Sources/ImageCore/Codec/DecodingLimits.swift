/// Limits checked from the header, before any pixel buffer is allocated, so a
/// decompression bomb is rejected at the cost of reading a few bytes.
public struct DecodingLimits: Sendable, Equatable {
    /// Largest canvas, in pixels (width × height), of one frame.
    public var maxPixels: Int
    /// Most frames an animation may have.
    public var maxFrames: Int
    /// Most pixels over all frames of an animation (canvas × frames).
    public var maxTotalPixels: Int
    /// Most scans a progressive JPEG may have; each scan costs a full pass
    /// over the coefficients, so thousands of tiny scans are a CPU bomb.
    public var maxJPEGScans: Int

    /// 100 megapixels, 1000 frames, 2 gigapixels in all, 500 JPEG scans (`Defaults`).
    public static let `default` = DecodingLimits(
        maxPixels: Defaults.maxPixels, maxFrames: Defaults.maxFrames, maxTotalPixels: Defaults.maxTotalPixels,
        maxJPEGScans: Defaults.maxJPEGScans)

    /// Creates limits.
    public init(maxPixels: Int, maxFrames: Int, maxTotalPixels: Int, maxJPEGScans: Int) {
        self.maxPixels = maxPixels
        self.maxFrames = maxFrames
        self.maxTotalPixels = maxTotalPixels
        self.maxJPEGScans = maxJPEGScans
    }

    /// This limit's value.
    public func value(of limit: ImageCoreError.Limit) -> Int? {
        switch limit {
        case .pixels: maxPixels
        case .frames: maxFrames
        case .totalPixels: maxTotalPixels
        case .scans: maxJPEGScans
        case .maxBytes: nil
        }
    }

    /// Throws `.image` if a canvas of `width` × `height` with `frames` frames
    /// is over a limit, or is empty.
    func check(width: Int, height: Int, frames: Int = 1) throws {
        guard width > 0, height > 0 else { throw ImageCoreError(.image, "corrupt image: \(width)×\(height) pixels") }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixels else {
            throw ImageCoreError.over(
                .pixels, "image too large: \(width)×\(height) pixels exceeds the limit of \(maxPixels)")
        }
        guard frames <= maxFrames else {
            throw ImageCoreError.over(.frames, "too many frames: \(frames) exceeds the limit of \(maxFrames)")
        }
        guard pixels * frames <= maxTotalPixels else {
            throw ImageCoreError.over(
                .totalPixels,
                "animation too large: \(frames) frames of \(width)×\(height) pixels "
                    + "exceed the limit of \(maxTotalPixels) pixels in all")
        }
    }
}
