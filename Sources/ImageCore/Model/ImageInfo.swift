/// What an image's header says, read without decoding its pixels. Every
/// downloaded body is inspected like this before it is stored.
public struct ImageInfo: Sendable, Equatable {
    /// The format sniffed from the bytes.
    public var format: ImageFormat
    /// Canvas width in pixels.
    public var width: Int
    /// Canvas height in pixels.
    public var height: Int
    /// Number of frames (1 for a still image).
    public var frameCount: Int
    /// For animations: how many times to play (0 = forever); nil for still images.
    public var loopCount: Int?
    /// EXIF orientation (1–8; 1 = as stored). Width and height are as stored.
    public var orientation: Int
    /// For animations: each frame's display time in milliseconds, as the
    /// file gives it (a GIF's 0 stays 0, though browsers show it as 100),
    /// one per frame; empty for still images, and for entries stored before
    /// it was kept (man page, JSON RECORDS: `delays_ms`).
    public var frameDurations: [Int]

    /// Creates header facts.
    public init(
        format: ImageFormat, width: Int, height: Int, frameCount: Int = 1, loopCount: Int? = nil,
        orientation: Int = 1, frameDurations: [Int] = []
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.frameCount = frameCount
        self.loopCount = loopCount
        self.orientation = orientation
        self.frameDurations = frameDurations
    }
}
