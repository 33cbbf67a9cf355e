/// A GIF's structure, read by our own walk over its blocks, one step per
/// record and per data sub-block (at most 255 bytes each), without
/// decoding the LZW data: what a download must pass before it is stored.
/// It accepts exactly what `GIFFile.read` (giflib's record API, which
/// decodes) walks through, with the same header facts: giflib skipping a
/// frame's data cost 16 k instructions a frame (its decoder set up and the
/// bytes copied through a callback) and 56 k a file to open, where this walk
/// costs a few hundred, and never loads giflib.
enum GIFStructure {
    /// Header facts of `bytes`, checked against `limits` frame by frame as
    /// `GIFFile.read` checks them. Throws `.image` for a file cut short, an
    /// unknown record, a code size over 8 or no frame before the trailer;
    /// bytes after the trailer are ignored, as giflib ignores them.
    static func read(_ bytes: [UInt8], limits: DecodingLimits) throws -> ImageInfo {
        var reader = Reader(bytes: bytes)
        guard bytes.count >= 6 else { throw truncated }
        // giflib checks "GIF" only, not the version.
        guard bytes[0] == 0x47, bytes[1] == 0x49, bytes[2] == 0x46 else {
            throw ImageCoreError(.image, "corrupt GIF: data is not in gif format")
        }
        reader.offset = 6
        let width = try reader.word(), height = try reader.word()
        let flags = try reader.byte()
        try reader.skip(2)  // background colour, aspect ratio
        if flags & 0x80 != 0 { try reader.skip(3 << (Int(flags & 7) + 1)) }
        try limits.check(width: width, height: height)
        var frames = 0
        var durations: [Int] = []
        // An animation's delays in one allocation or two, not one for each doubling from one.
        durations.reserveCapacity(16)
        var loopCount: Int?
        var delay = 0  // hundredths of a second, from the last graphic control block
        while true {
            switch try reader.byte() {
            case 0x2C:  // image descriptor
                try reader.skip(4)  // left, top
                let frameWidth = try reader.word(), frameHeight = try reader.word()
                let frameFlags = try reader.byte()
                if frameFlags & 0x80 != 0 { try reader.skip(3 << (Int(frameFlags & 7) + 1)) }
                // giflib reads the LZW code size with the descriptor.
                guard try reader.byte() <= 8 else { throw truncated }
                frames += 1
                durations.append(delay * 10)
                try limits.check(width: width, height: height, frames: frames)
                try limits.check(width: frameWidth, height: frameHeight)
                try reader.skipSubBlocks()
                delay = 0
            case 0x21:  // extension
                try readExtension(&reader, delay: &delay, loopCount: &loopCount)
            case 0x3B:  // trailer
                guard frames > 0 else { throw ImageCoreError(.image, "corrupt GIF: no image in the file") }
                return ImageInfo(
                    format: .gif, width: width, height: height, frameCount: frames,
                    loopCount: frames > 1 ? (loopCount ?? 1) : nil, frameDurations: frames > 1 ? durations : [])
            default:
                throw ImageCoreError(.image, "corrupt GIF: wrong record type detected")
            }
        }
    }

    /// One extension: the graphic control block's delay and the
    /// NETSCAPE2.0 loop count matter. As `GIFFile.readExtension` (through
    /// giflib's `DGifGetExtension` and `DGifGetExtensionNext`) does, the
    /// first sub-block is read with the label, and sub-blocks are then read
    /// until an empty one, even when the first was empty.
    private static func readExtension(_ reader: inout Reader, delay: inout Int, loopCount: inout Int?) throws {
        let label = try reader.byte()
        var first = try reader.subBlock()
        var isNetscape = false
        if let block = first {
            // giflib's DGifExtensionToGCB takes exactly four bytes.
            if label == 0xF9 && block.count == 4 {
                delay = Int(reader.bytes[block.lowerBound + 1]) | Int(reader.bytes[block.lowerBound + 2]) << 8
            } else if label == 0xFF && block.count == 11 {
                isNetscape = reader.bytes[block].elementsEqual("NETSCAPE2.0".utf8)
            }
        }
        repeat {
            first = try reader.subBlock()
            if isNetscape, let block = first, block.count >= 3, reader.bytes[block.lowerBound] == 1 {
                loopCount = Int(reader.bytes[block.lowerBound + 1]) | Int(reader.bytes[block.lowerBound + 2]) << 8
            }
        } while first != nil
    }

    private static var truncated: ImageCoreError {
        ImageCoreError(.image, "corrupt GIF: failed to read from given file")
    }

    /// A position in the bytes; every read is bounds-checked. The reads are
    /// inlined, which the optimizer had left as calls: those, with the
    /// delays' array grown from one element, were a third of the walk's
    /// 10.6 k instructions a GIF (callgrind, the cold row's GIFs).
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        @inline(__always) mutating func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw truncated }
            defer { offset += 1 }
            return bytes[offset]
        }

        /// A little-endian 16-bit field.
        @inline(__always) mutating func word() throws -> Int {
            guard offset + 2 <= bytes.count else { throw truncated }
            defer { offset += 2 }
            return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
        }

        @inline(__always) mutating func skip(_ count: Int) throws {
            guard offset + count <= bytes.count else { throw truncated }
            offset += count
        }

        /// The next data sub-block's bytes, or nil for the empty one that ends a run.
        @inline(__always) mutating func subBlock() throws -> Range<Int>? {
            let length = Int(try byte())
            guard length > 0 else { return nil }
            try skip(length)
            return offset - length..<offset
        }

        /// Skips sub-blocks up to and including the empty one.
        mutating func skipSubBlocks() throws {
            while true {
                guard offset < bytes.count else { throw truncated }
                let length = Int(bytes[offset])
                guard length > 0 else {
                    offset += 1
                    return
                }
                try skip(1 + length)
            }
        }
    }
}
