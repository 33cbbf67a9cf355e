/// Receives an image's composited frames one at a time, as they are
/// decoded: the decoder keeps only its canvas (and, for GIF's
/// dispose-to-previous, one saved copy), never every frame, so memory stays
/// flat whatever the frame count. A scaler and an animated encoder can sit
/// behind this seam and re-encode frame by frame.
///
/// Thread safety: a sink is used by one decode, on one thread.
public protocol FrameSink {
    /// Called once, before the first frame: the canvas size.
    mutating func begin(width: Int, height: Int) throws

    /// The next frame: the whole canvas as RGBA, `width × height × 4` bytes,
    /// valid only during the call, and how long it is shown.
    mutating func write(frame: UnsafeRawBufferPointer, durationMilliseconds: Int) throws

    /// The next frame, drawn from an indexed `palette` (a GIF's colour
    /// table), which an indexed encoder can reuse. Sinks that have no use for
    /// it need not implement this: it calls `write(frame:durationMilliseconds:)`.
    mutating func write(frame: UnsafeRawBufferPointer, palette: FramePalette, durationMilliseconds: Int) throws

    /// Called once after the last frame: how many times the animation plays
    /// (0 = forever), or nil for a still image.
    mutating func finish(loopCount: Int?) throws
}

extension FrameSink {
    /// Forgets the palette: `write(frame:durationMilliseconds:)`.
    public mutating func write(
        frame: UnsafeRawBufferPointer, palette: FramePalette, durationMilliseconds: Int
    ) throws {
        try write(frame: frame, durationMilliseconds: durationMilliseconds)
    }
}

/// Keeps every frame: what `ImageDecoding.decode(_:frame:scale:)` returns.
struct FrameCollector: FrameSink {
    private(set) var width = 0
    private(set) var height = 0
    private(set) var frames: [DecodedImage.Frame] = []
    private(set) var loopCount: Int?

    mutating func begin(width: Int, height: Int) {
        (self.width, self.height) = (width, height)
    }

    mutating func write(frame: UnsafeRawBufferPointer, durationMilliseconds: Int) {
        frames.append(DecodedImage.Frame(pixels: Array(frame), durationMilliseconds: durationMilliseconds))
    }

    mutating func write(frame: UnsafeRawBufferPointer, palette: FramePalette, durationMilliseconds: Int) {
        frames.append(
            DecodedImage.Frame(pixels: Array(frame), durationMilliseconds: durationMilliseconds, palette: palette))
    }

    mutating func finish(loopCount: Int?) {
        self.loopCount = loopCount
    }

    /// The frames as one image of `format`.
    func image(_ format: ImageFormat) -> DecodedImage {
        DecodedImage(format: format, width: width, height: height, frames: frames, loopCount: loopCount)
    }
}

/// Writes each frame a `FrameSink` receives to a `RowSink` as one image
/// (`begin` per frame), as RGBA or, a few rows at a time, as RGB.
struct FramesAsRows<Rows: RowSink>: FrameSink {
    var rows: Rows
    let channels: Int
    private var width = 0
    private var height = 0

    init(_ rows: Rows, channels: Int) {
        self.rows = rows
        self.channels = channels
    }

    mutating func begin(width: Int, height: Int) {
        (self.width, self.height) = (width, height)
    }

    mutating func write(frame: UnsafeRawBufferPointer, durationMilliseconds: Int) throws {
        try rows.begin(width: width, height: height, channels: channels)
        guard channels == 3 else { return try rows.write(rows: frame) }
        let chunkRows = 16
        var rgb = [UInt8](repeating: 0, count: width * 3 * chunkRows)
        var row = 0
        while row < height {
            let count = min(chunkRows, height - row)
            let pixels = width * count, base = row * width * 4
            rgb.withUnsafeMutableBufferPointer { target in
                for pixel in 0..<pixels {
                    target[pixel * 3] = frame[base + pixel * 4]
                    target[pixel * 3 + 1] = frame[base + pixel * 4 + 1]
                    target[pixel * 3 + 2] = frame[base + pixel * 4 + 2]
                }
            }
            try rgb.withUnsafeBytes { try rows.write(rows: UnsafeRawBufferPointer(rebasing: $0[..<(pixels * 3)])) }
            row += count
        }
    }

    mutating func finish(loopCount: Int?) {}
}
