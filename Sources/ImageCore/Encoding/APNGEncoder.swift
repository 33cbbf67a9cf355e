/// Animated PNG, frame by frame: each frame is the whole canvas compressed by
/// libpng (`PNGEncoder`), whose IDAT data becomes the frame's IDAT (first
/// frame, so the default image is frame 0 and a viewer without APNG shows
/// it) or fdAT chunks, behind an fcTL with dispose op NONE and blend op
/// SOURCE. A single frame is written as a plain PNG.
final class APNGEncoder {
    private let width: Int
    private let height: Int
    private let loopCount: Int
    private var frames: [(header: [UInt8], data: [UInt8], durationMilliseconds: Int)] = []

    init(width: Int, height: Int, loopCount: Int) {
        self.width = width
        self.height = height
        self.loopCount = loopCount
    }

    /// Compresses one frame of RGBA pixels.
    func add(_ pixels: [UInt8], durationMilliseconds: Int) throws {
        let png = try PNGEncoder.encode(pixels, width: width, height: height)
        var header: [UInt8] = [], data: [UInt8] = []
        var index = 8
        while index + 12 <= png.count {
            let length =
                Int(png[index]) << 24 | Int(png[index + 1]) << 16 | Int(png[index + 2]) << 8 | Int(png[index + 3])
            let type = png[index + 4..<index + 8]
            if type.elementsEqual("IHDR".utf8) { header = Array(png[index + 8..<index + 8 + length]) }
            if type.elementsEqual("IDAT".utf8) { data += png[index + 8..<index + 8 + length] }
            index += 12 + length
        }
        frames.append((header, data, durationMilliseconds))
    }

    /// The finished file.
    func finish() throws -> [UInt8] {
        guard let first = frames.first else { throw ImageCoreError(.failure, "an animation needs at least one frame") }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        PNGChunkWriter.append("IHDR", first.header, to: &png)
        let animated = frames.count > 1
        if animated {
            PNGChunkWriter.append(
                "acTL", PNGChunkWriter.bigEndian(frames.count) + PNGChunkWriter.bigEndian(loopCount), to: &png)
        }
        var sequence = 0
        for (number, frame) in frames.enumerated() {
            if animated {
                // Milliseconds over 1000 while they fit the 16-bit numerator.
                let (numerator, denominator) =
                    frame.durationMilliseconds <= 0xFFFF
                    ? (frame.durationMilliseconds, 1000) : (min(0xFFFF, (frame.durationMilliseconds + 5) / 10), 100)
                let control =
                    PNGChunkWriter.bigEndian(sequence) + PNGChunkWriter.bigEndian(width)
                    + PNGChunkWriter.bigEndian(height)
                    + [0, 0, 0, 0, 0, 0, 0, 0]  // x and y offsets
                    + [
                        UInt8(numerator >> 8), UInt8(numerator & 0xFF), UInt8(denominator >> 8),
                        UInt8(denominator & 0xFF), 0, 0,
                    ]
                PNGChunkWriter.append("fcTL", control, to: &png)
                sequence += 1
            }
            if number == 0 {
                PNGChunkWriter.append("IDAT", frame.data, to: &png)
            } else {
                PNGChunkWriter.append("fdAT", PNGChunkWriter.bigEndian(sequence) + frame.data, to: &png)
                sequence += 1
            }
        }
        PNGChunkWriter.append("IEND", [], to: &png)
        return png
    }

    /// Every frame of `image`, its durations and loop count.
    static func encode(_ image: DecodedImage) throws -> [UInt8] {
        let encoder = APNGEncoder(width: image.width, height: image.height, loopCount: image.loopCount ?? 0)
        for frame in image.frames { try encoder.add(frame.pixels, durationMilliseconds: frame.durationMilliseconds) }
        return try encoder.finish()
    }
}
