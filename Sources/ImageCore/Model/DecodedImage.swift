/// Pixels of a decoded image: 8-bit RGBA, unpremultiplied, rows top to bottom,
/// no padding. Animations hold every frame composited onto the full canvas,
/// as a browser shows it.
public struct DecodedImage: Sendable {
    /// One composited frame.
    public struct Frame: Sendable {
        /// `width * height * 4` bytes of RGBA.
        public var pixels: [UInt8]
        /// How long the frame is shown, in milliseconds (0 for still images).
        public var durationMilliseconds: Int
        /// The colour table the frame was drawn from, for a GIF; nil otherwise.
        public var palette: FramePalette?

        /// Creates a frame.
        public init(pixels: [UInt8], durationMilliseconds: Int = 0, palette: FramePalette? = nil) {
            self.pixels = pixels
            self.durationMilliseconds = durationMilliseconds
            self.palette = palette
        }
    }

    /// The format the pixels were decoded from.
    public var format: ImageFormat
    /// Canvas width in pixels.
    public var width: Int
    /// Canvas height in pixels.
    public var height: Int
    /// The frames, at least one.
    public var frames: [Frame]
    /// For animations: how many times to play (0 = forever); nil for still images.
    public var loopCount: Int?
    /// The colour space the pixels are in, as the file declared it; nil for
    /// sRGB (no profile, or pixels already converted to sRGB). An encoded
    /// output embeds it.
    public var colour: ColourProfile?

    /// Creates a decoded image.
    public init(format: ImageFormat, width: Int, height: Int, frames: [Frame], loopCount: Int? = nil) {
        self.format = format
        self.width = width
        self.height = height
        self.frames = frames
        self.loopCount = loopCount
    }

    /// Bytes of pixel memory held: the memory cache's cost.
    public var cost: Int { frames.reduce(0) { $0 + $1.pixels.count } }
}
