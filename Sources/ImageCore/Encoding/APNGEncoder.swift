/// Animated PNG, frame by frame, each compressed by libpng (`PNGEncoder`),
/// whose IDAT data becomes the frame's IDAT (first frame, so the default
/// image is frame 0 and a viewer without APNG shows it) or fdAT chunks,
/// behind an fcTL with dispose op NONE. After the first, a frame holds only
/// the smallest rectangle that differs from the frame before (one
/// transparent pixel if none does): blend op OVER with the unchanged pixels
/// of that rectangle transparent when every changed pixel is opaque (runs
/// of zeros compress well), else blend op SOURCE with the pixels as they
/// are. A single frame is written as a plain PNG.
final class APNGEncoder {
    /// One frame as it is written.
    private struct Frame {
        var rect: PixelRect
        var blendsOver: Bool
        var data: [UInt8]
        var durationMilliseconds: Int
    }

    private let width: Int
    private let height: Int
    private let loopCount: Int
    private var header: [UInt8] = []
    private var frames: [Frame] = []
    private var previous: [UInt8] = []

    init(width: Int, height: Int, loopCount: Int) {
        self.width = width
        self.height = height
        self.loopCount = loopCount
    }

    /// Compresses one frame of RGBA pixels, or the part of it that changed.
    func add(_ pixels: [UInt8], durationMilliseconds: Int) throws {
        defer { previous = pixels }
        guard !previous.isEmpty else {
            let png = try PNGEncoder.encode(pixels, width: width, height: height)
            header = Self.chunk("IHDR", of: png)
            let whole = PixelRect(width: width, height: height)
            frames.append(
                Frame(
                    rect: whole, blendsOver: false, data: Self.chunk("IDAT", of: png),
                    durationMilliseconds: durationMilliseconds))
            return
        }
        var rect = previous.withUnsafeBytes { old in
            pixels.withUnsafeBytes { PixelRect.changed(from: old, to: $0, width: width, height: height) }
        }
        if rect.isEmpty { rect = PixelRect(x: 0..<1, y: 0..<1) }
        var region = [UInt8](), opaque = true
        region.reserveCapacity(rect.width * rect.height * 4)
        for y in rect.y {
            for x in rect.x {
                let offset = (y * width + x) * 4
                let pixel = pixels[offset..<offset + 4]
                if pixel.elementsEqual(previous[offset..<offset + 4]) {
                    region += [0, 0, 0, 0]
                } else {
                    opaque = opaque && pixel.last == 255
                    region += pixel
                }
            }
        }
        if !opaque {
            // SOURCE replaces the rectangle: it needs every pixel as it is.
            region = rect.y.flatMap { y in
                pixels[(y * width + rect.x.lowerBound) * 4..<(y * width + rect.x.upperBound) * 4]
            }
        }
        let png = try PNGEncoder.encode(region, width: rect.width, height: rect.height)
        frames.append(
            Frame(
                rect: rect, blendsOver: opaque, data: Self.chunk("IDAT", of: png),
                durationMilliseconds: durationMilliseconds))
    }

    /// The finished file.
    func finish() throws -> [UInt8] {
        guard frames.first != nil else { throw ImageCoreError(.failure, "an animation needs at least one frame") }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        PNGChunkWriter.append("IHDR", header, to: &png)
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
                    PNGChunkWriter.bigEndian(sequence) + PNGChunkWriter.bigEndian(frame.rect.width)
                    + PNGChunkWriter.bigEndian(frame.rect.height) + PNGChunkWriter.bigEndian(frame.rect.x.lowerBound)
                    + PNGChunkWriter.bigEndian(frame.rect.y.lowerBound)
                    + [
                        UInt8(numerator >> 8), UInt8(numerator & 0xFF), UInt8(denominator >> 8),
                        UInt8(denominator & 0xFF), 0, frame.blendsOver ? 1 : 0,
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

    /// The data of every `type` chunk of `png`, joined (IDAT may be split).
    private static func chunk(_ type: String, of png: [UInt8]) -> [UInt8] {
        var data: [UInt8] = []
        var index = 8
        while index + 12 <= png.count {
            let length =
                Int(png[index]) << 24 | Int(png[index + 1]) << 16 | Int(png[index + 2]) << 8 | Int(png[index + 3])
            if png[index + 4..<index + 8].elementsEqual(type.utf8) { data += png[index + 8..<index + 8 + length] }
            index += 12 + length
        }
        return data
    }
}
