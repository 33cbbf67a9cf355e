/// A GIF frame's LZW data decoded to palette indices, with the codes read
/// and the table kept as giflib's `DGifDecompressLine` and
/// `DGifDecompressInput` keep them (code widths, a full table kept as it
/// is until a clear code, the "KwKwK" code), hence the same indices for
/// every stream giflib decodes. What differs is how a code's string is
/// made: giflib walks the code's prefix chain backwards, a dependent load
/// a pixel, onto a stack, and pops it; here each code is the place in the
/// output where its string was first written and its length, and the
/// string is copied from there eight bytes at a time. aero.gif (56 frames
/// of 350 × 189): 132 M instructions in giflib, 5.7 M here (callgrind).
struct GIFLZW {
    /// Why a stream was refused, as giflib names it (`GifErrorString`).
    enum Failure: Error {
        /// A code that no string is defined for yet (after a clear code), or the data
        /// ending before the frame's last pixel: giflib's `D_GIF_ERR_IMAGE_DEFECT`.
        case defective
        /// The end code before the frame's last pixel: giflib's `D_GIF_ERR_EOF_TOO_SOON`.
        case endTooSoon
        /// A code past the next to be defined: `decode` leaves it to `decodeAsGiflib`.
        case unlike
    }

    /// giflib's `LZ_MAX_CODE`: codes are at most 12 bits.
    private static let maxCode = 4095

    /// Where each code's string starts in the output, and its length; a
    /// literal code's string is the literal, written where it was read.
    /// Unsigned 32 bits: a GIF frame has fewer than 2³² pixels (65535 ×
    /// 65535 at most, `decode` checks), but may have more than 2³¹ when
    /// `--limit-pixels` allows it, where an `Int32` start wrapped negative.
    private var start = [UInt32](repeating: 0, count: maxCode + 1)
    private var length = [UInt32](repeating: 0, count: maxCode + 1)

    /// Decodes `data` (the frame's data sub-blocks, joined) with the
    /// minimum code size `codeSize` (at most 8) into `output`, which must
    /// have 8 bytes of room past `count` (strings are copied eight bytes at
    /// a time). Data past the frame's last pixel is ignored, as giflib
    /// ignores it.
    mutating func decode(
        _ data: UnsafeBufferPointer<UInt8>, codeSize: Int, into output: UnsafeMutablePointer<UInt8>, count: Int
    ) throws(Failure) {
        // giflib refuses a code size over 8 before any data (`DGifSetupDecompress`); it is
        // checked here too, so that no code can index past the 4096-entry tables.
        guard (0...8).contains(codeSize) else { throw .defective }
        // `start` holds an output position in 32 bits.
        guard count <= UInt32.max else {
            return try Self.decodeAsGiflib(data, codeSize: codeSize, into: output, count: count)
        }
        do {
            try decodeCopying(data, codeSize: codeSize, into: output, count: count)
        } catch .unlike {
            try Self.decodeAsGiflib(data, codeSize: codeSize, into: output, count: count)
        }
    }

    /// `decode` by copying strings; throws `.unlike` for a code past the next to be defined.
    private mutating func decodeCopying(
        _ data: UnsafeBufferPointer<UInt8>, codeSize: Int, into output: UnsafeMutablePointer<UInt8>, count: Int
    ) throws(Failure) {
        guard count > 0 else { return }
        let clear = 1 << codeSize, end = clear + 1
        let input = data.baseAddress!, inputCount = data.count
        var inputOffset = 0
        var bits: UInt64 = 0, bitCount = 0
        var width = codeSize + 1, widthLimit = 1 << width
        // giflib's RunningCode: one past the slot the next entry goes to,
        // counted for every code read (so 2 past the last defined entry).
        var running = clear + 2
        // Codes below this are defined (from clear + 2 on).
        var defined = clear + 2
        var last = -1  // giflib's LastCode; -1 for NO_SUCH_CODE
        // Where the last code's string was just written, and its length.
        var lastHere = 0, lastLength = 0
        var position = 0
        let raw = UnsafeMutableRawPointer(output)
        try start.withUnsafeMutableBufferPointer { start throws(Failure) in
            try length.withUnsafeMutableBufferPointer { length throws(Failure) in
                let start = start.baseAddress!, length = length.baseAddress!
                while position < count {
                    // The next code, width bits, least significant first.
                    while bitCount < width {
                        guard inputOffset < inputCount else { throw .defective }
                        bits |= UInt64(input[inputOffset]) &<< UInt64(bitCount)
                        inputOffset &+= 1
                        bitCount &+= 8
                    }
                    let code = Int(bits & UInt64(widthLimit &- 1))
                    bits >>= UInt64(width)
                    bitCount &-= width
                    if running < Self.maxCode + 2 {
                        running &+= 1
                        if running > widthLimit && width < 12 {
                            widthLimit <<= 1
                            width &+= 1
                        }
                    }
                    if code == end { throw .endTooSoon }
                    if code == clear {
                        running = clear + 2
                        width = codeSize + 1
                        widthLimit = 1 << width
                        defined = clear + 2
                        last = -1
                        continue
                    }
                    let slot = running &- 2
                    let here = position
                    if code < clear {
                        output[position] = UInt8(truncatingIfNeeded: code)
                        position &+= 1
                    } else {
                        // A code with no string yet: the last code's string and its first
                        // byte when it is the slot about to be defined (the "KwKwK" code).
                        // Any later code is corrupt, and giflib's answer to it depends on
                        // its prefix chains: `decodeAsGiflib` gives it.
                        guard last >= 0 || code < defined else { throw .defective }
                        let isDefined = code < defined
                        guard isDefined || code == slot else { throw .unlike }
                        let stringStart = isDefined ? Int(start[code]) : lastHere
                        let stringLength = isDefined ? Int(length[code]) : lastLength
                        let copied = min(stringLength, count &- position)
                        var offset = 0
                        repeat {
                            raw.storeBytes(
                                of: raw.loadUnaligned(fromByteOffset: stringStart &+ offset, as: UInt64.self),
                                toByteOffset: position &+ offset, as: UInt64.self)
                            offset &+= 8
                        } while offset < copied
                        position &+= copied
                        if !isDefined && position < count {
                            output[position] = output[stringStart]
                            position &+= 1
                        }
                    }
                    // The new entry: the last string and the byte after it, this string's first.
                    if last >= 0 && slot <= Self.maxCode && slot >= defined {
                        start[slot] = UInt32(truncatingIfNeeded: lastHere)
                        length[slot] = UInt32(truncatingIfNeeded: lastLength &+ 1)
                        defined = slot &+ 1
                    }
                    last = code
                    lastHere = here
                    lastLength = position &- here
                }
            }
        }
    }

    /// giflib's `DGifDecompressLine` and `DGifGetPrefixChar`, line for
    /// line, over the whole frame: prefix chains walked onto a stack. Only
    /// a corrupt stream (a code past the next to be defined) comes here; a
    /// chain may then lead through a code defined later, or loop, which
    /// giflib stops at 4095 steps as defective.
    static func decodeAsGiflib(
        _ data: UnsafeBufferPointer<UInt8>, codeSize: Int, into output: UnsafeMutablePointer<UInt8>, count: Int
    ) throws(Failure) {
        guard (0...8).contains(codeSize) else { throw .defective }
        let noSuchCode = 4098
        let clear = 1 << codeSize, end = clear + 1
        var prefix = [Int](repeating: noSuchCode, count: maxCode + 1)
        var suffix = [UInt8](repeating: 0, count: maxCode + 1)
        var stack = [UInt8](repeating: 0, count: maxCode)
        var inputOffset = 0
        var bits: UInt64 = 0, bitCount = 0
        var width = codeSize + 1, widthLimit = 1 << width
        var running = clear + 2
        var last = noSuchCode
        var position = 0
        var stackCount = 0
        func prefixChar(_ code: Int) -> Int {
            var code = code, steps = 0
            while code > clear && steps <= maxCode {
                steps += 1
                if code > maxCode { return noSuchCode }
                code = prefix[code]
            }
            return code
        }
        while position < count {
            while bitCount < width {
                guard inputOffset < data.count else { throw .defective }
                bits |= UInt64(data[inputOffset]) << UInt64(bitCount)
                inputOffset += 1
                bitCount += 8
            }
            let code = Int(bits & UInt64(widthLimit - 1))
            bits >>= UInt64(width)
            bitCount -= width
            if running < maxCode + 2 {
                running += 1
                if running > widthLimit && width < 12 {
                    widthLimit <<= 1
                    width += 1
                }
            }
            if code == end { throw .endTooSoon }
            if code == clear {
                for index in prefix.indices { prefix[index] = noSuchCode }
                running = clear + 2
                width = codeSize + 1
                widthLimit = 1 << width
                last = noSuchCode
                continue
            }
            if code < clear {
                output[position] = UInt8(code)
                position += 1
            } else {
                var chain: Int
                if prefix[code] == noSuchCode {
                    chain = last
                    let byte = UInt8(truncatingIfNeeded: prefixChar(code == running - 2 ? last : code))
                    suffix[running - 2] = byte
                    stack[stackCount] = byte
                    stackCount += 1
                } else {
                    chain = code
                }
                while stackCount < maxCode && chain > clear && chain <= maxCode {
                    stack[stackCount] = suffix[chain]
                    stackCount += 1
                    chain = prefix[chain]
                }
                if stackCount >= maxCode || chain > maxCode { throw .defective }
                stack[stackCount] = UInt8(truncatingIfNeeded: chain)
                stackCount += 1
                // What does not fit is left on giflib's stack, past the frame's end.
                while stackCount != 0 && position < count {
                    stackCount -= 1
                    output[position] = stack[stackCount]
                    position += 1
                }
            }
            if last != noSuchCode && running - 2 <= maxCode && prefix[running - 2] == noSuchCode {
                prefix[running - 2] = last
                suffix[running - 2] = UInt8(truncatingIfNeeded: prefixChar(code == running - 2 ? last : code))
            }
            last = code
        }
    }
}
