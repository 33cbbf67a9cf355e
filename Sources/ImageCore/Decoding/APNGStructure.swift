/// An animated PNG's structure, read by our own walk over its chunks (Debian's
/// libpng has no APNG patch): `acTL`, then each frame's `fcTL` and its data,
/// `IDAT` for a default image that is the first frame, `fdAT` for the rest.
/// Checked as the APNG specification asks: every CRC, sequence numbers
/// 0, 1, 2... over `fcTL` and `fdAT` in file order, each frame region inside
/// the canvas, no `fdAT` before an `fcTL`, as many frames as `acTL` promises.
struct APNGStructure {
    /// One frame's control chunk (`fcTL`) and the zlib stream of its pixels.
    struct Frame {
        var width: Int
        var height: Int
        var x: Int
        var y: Int
        /// `delay_num / delay_den` seconds, rounded; a zero denominator means 1/100 s.
        var durationMilliseconds: Int
        /// 0 none, 1 background (clear to transparent), 2 previous (restore).
        var disposeOp: UInt8
        /// 0 source (replace), 1 over (alpha-composite).
        var blendOp: UInt8
        /// Concatenated IDAT or fdAT data (without the sequence numbers).
        var data: [UInt8] = []
    }

    /// IHDR's 13 bytes (width, height, bit depth, colour type, ...).
    var header: ArraySlice<UInt8>
    var width: Int
    var height: Int
    /// How many times to play; 0 = forever.
    var plays: Int
    var frames: [Frame]
    /// Chunks before the image data that every frame's pixels depend on
    /// (PLTE, tRNS), whole, to repeat in each frame's synthesized PNG.
    var pixelChunks: [UInt8]

    /// The structure of `bytes`, or nil for a PNG without `acTL` before its
    /// image data (a still image; an `acTL` after IDAT is ignored, as the
    /// specification says). Throws `.image` for a malformed animation.
    static func read(_ bytes: [UInt8]) throws -> APNGStructure? {
        guard bytes.count >= 33, bytes[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        var structure: APNGStructure?
        var expectedFrames = 0
        var sequence = 0
        var sawImageData = false
        var pixelChunks: [UInt8] = []
        var index = 8
        while index + 12 <= bytes.count {
            let length = readInt(bytes, at: index)
            guard length <= 0x7FFF_FFFF, index + 12 + length <= bytes.count else {
                if structure == nil { return nil }  // a still: libpng reports the cut
                throw corrupt("truncated (chunk runs past the end of the file)")
            }
            // The type as its four bytes' number, compared with each name's:
            // a `String` of them compared with each `case`'s was 6 k
            // instructions a still PNG (callgrind), which is walked too.
            let type = readInt(bytes, at: index + 4)
            let data = bytes[index + 8..<index + 8 + length]
            if structure != nil || type == Tag.animationControl {
                let stored = UInt32(readInt(bytes, at: index + 8 + length))
                guard CRC32.checksum(bytes[index + 4..<index + 8 + length]) == stored else {
                    throw corrupt("CRC error in chunk \(String(decoding: bytes[index + 4..<index + 8], as: UTF8.self))")
                }
            }
            switch type {
            case Tag.animationControl where !sawImageData && structure == nil:
                guard length == 8 else { throw corrupt("acTL has \(length) bytes, not 8") }
                expectedFrames = readInt(bytes, at: index + 8)
                guard expectedFrames > 0 else { throw corrupt("acTL promises no frames") }
                // Every chunk after acTL is checked on the way; IHDR, which
                // each frame's PNG repeats, is checked here.
                guard CRC32.checksum(bytes[12..<29]) == UInt32(readInt(bytes, at: 29)) else {
                    throw corrupt("CRC error in chunk IHDR")
                }
                structure = APNGStructure(
                    header: bytes[16..<29], width: readInt(bytes, at: 16), height: readInt(bytes, at: 20),
                    plays: readInt(bytes, at: index + 12), frames: [], pixelChunks: [])
            case Tag.palette where !sawImageData, Tag.transparency where !sawImageData:
                // Kept whether or not acTL came first: it may come after them.
                pixelChunks += bytes[index..<index + 12 + length]
            case Tag.frameControl where structure != nil:
                try structure!.addFrame(data, sequence: &sequence)
            case Tag.imageData where structure != nil:
                // The default image is the first frame only if an fcTL came first.
                if let first = structure!.frames.first {
                    guard structure!.frames.count == 1 else { throw corrupt("IDAT after a second fcTL") }
                    guard (first.x, first.y, first.width, first.height) == (0, 0, structure!.width, structure!.height)
                    else {
                        throw corrupt("the default image's frame is not the whole canvas")
                    }
                    structure!.frames[0].data += data
                }
                sawImageData = true
            case Tag.frameData where structure != nil:
                guard length >= 4 else { throw corrupt("fdAT has no sequence number") }
                guard !structure!.frames.isEmpty else { throw corrupt("fdAT before any fcTL") }
                guard sawImageData else { throw corrupt("fdAT before IDAT") }
                try checkSequence(readInt(bytes, at: index + 8), &sequence)
                structure!.frames[structure!.frames.count - 1].data += data.dropFirst(4)
            case Tag.imageData:
                sawImageData = true
            case Tag.end:
                guard var found = structure else { return nil }
                guard found.frames.count == expectedFrames else {
                    throw corrupt("acTL promises \(expectedFrames) frames, the file has \(found.frames.count)")
                }
                if let empty = found.frames.firstIndex(where: { $0.data.isEmpty }) {
                    throw corrupt("frame \(empty) has no image data")
                }
                found.pixelChunks = pixelChunks
                return found
            default:
                break
            }
            index += 12 + length
        }
        if structure == nil { return nil }
        throw corrupt("truncated (no IEND chunk)")
    }

    /// Reads an fcTL chunk's 26 bytes into a new frame.
    private mutating func addFrame(_ data: ArraySlice<UInt8>, sequence: inout Int) throws {
        guard data.count == 26 else { throw Self.corrupt("fcTL has \(data.count) bytes, not 26") }
        let base = data.startIndex
        try Self.checkSequence(Self.readInt(data, at: base), &sequence)
        let field = { (offset: Int) in Self.readInt(data, at: base + offset) }
        let (frameWidth, frameHeight, x, y) = (field(4), field(8), field(12), field(16))
        let delayNumerator = Int(data[base + 20]) << 8 | Int(data[base + 21])
        let delayDenominator = Int(data[base + 22]) << 8 | Int(data[base + 23])
        let number = frames.count
        guard frameWidth > 0, frameHeight > 0 else { throw Self.corrupt("frame \(number) is empty") }
        // Each term is below 2^31, so the sums cannot overflow.
        guard x + frameWidth <= width, y + frameHeight <= height else {
            throw Self.corrupt(
                "frame \(number) (\(frameWidth)×\(frameHeight) at \(x),\(y)) lies outside the \(width)×\(height) canvas"
            )
        }
        guard data[base + 24] <= 2, data[base + 25] <= 1 else {
            throw Self.corrupt("frame \(number) has dispose op \(data[base + 24]), blend op \(data[base + 25])")
        }
        let denominator = delayDenominator == 0 ? 100 : delayDenominator
        frames.append(
            Frame(
                width: frameWidth, height: frameHeight, x: x, y: y,
                durationMilliseconds: (delayNumerator * 1000 + denominator / 2) / denominator,
                disposeOp: data[base + 24], blendOp: data[base + 25]))
    }

    private static func checkSequence(_ number: Int, _ expected: inout Int) throws {
        guard number == expected else { throw corrupt("sequence number \(number) where \(expected) was expected") }
        expected += 1
    }

    /// The big-endian 32-bit integer at `index`.
    private static func readInt<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at index: Int) -> Int
    where Bytes.Index == Int {
        Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
    }

    /// The chunk types read, as the big-endian number of their four bytes.
    private enum Tag {
        static let animationControl = tag("acTL"), palette = tag("PLTE"), transparency = tag("tRNS")
        static let frameControl = tag("fcTL"), imageData = tag("IDAT"), frameData = tag("fdAT"), end = tag("IEND")

        private static func tag(_ name: StaticString) -> Int {
            APNGStructure.readInt(UnsafeBufferPointer(start: name.utf8Start, count: 4), at: 0)
        }
    }

    private static func corrupt(_ detail: String) -> ImageCoreError {
        ImageCoreError(.image, "corrupt APNG: \(detail)")
    }
}
