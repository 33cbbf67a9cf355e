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

    /// 100 megapixels, 1000 frames, 2 gigapixels in all, 500 JPEG scans.
    public static let `default` = DecodingLimits(
        maxPixels: 100_000_000, maxFrames: 1000, maxTotalPixels: 2_000_000_000, maxJPEGScans: 500)

    /// Creates limits.
    public init(maxPixels: Int, maxFrames: Int, maxTotalPixels: Int, maxJPEGScans: Int) {
        self.maxPixels = maxPixels
        self.maxFrames = maxFrames
        self.maxTotalPixels = maxTotalPixels
        self.maxJPEGScans = maxJPEGScans
    }
}
