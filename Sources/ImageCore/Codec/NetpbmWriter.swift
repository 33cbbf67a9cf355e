/// Netpbm output: PAM (RGBA) and PPM (RGB). Several images in one stream are
/// simply concatenated, which every Netpbm tool reads frame by frame.
enum NetpbmWriter {
    /// The header of one PAM image, RGBA at 8 bits.
    static func pamHeader(width: Int, height: Int) -> [UInt8] {
        Array("P7\nWIDTH \(width)\nHEIGHT \(height)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n".utf8)
    }

    /// The header of one PPM image, RGB at 8 bits.
    static func ppmHeader(width: Int, height: Int) -> [UInt8] {
        Array("P6\n\(width) \(height)\n255\n".utf8)
    }

    /// Every frame as a PAM image with `TUPLTYPE RGB_ALPHA`.
    static func pam(_ image: DecodedImage) -> [UInt8] {
        let header = pamHeader(width: image.width, height: image.height)
        var out: [UInt8] = []
        out.reserveCapacity((header.count + image.width * image.height * 4) * image.frames.count)
        for frame in image.frames {
            out += header
            out += frame.pixels
        }
        return out
    }

    /// Every frame as a PPM image; alpha is dropped, not blended.
    static func ppm(_ image: DecodedImage) -> [UInt8] {
        let header = ppmHeader(width: image.width, height: image.height)
        let pixelCount = image.width * image.height
        let total = (header.count + pixelCount * 3) * image.frames.count
        // Not zeroed first: every byte is written below.
        return [UInt8](unsafeUninitializedCapacity: total) { target, count in
            count = total
            var offset = 0
            for frame in image.frames {
                for byte in header {
                    target[offset] = byte
                    offset += 1
                }
                frame.pixels.withUnsafeBufferPointer { source in
                    // A pixel is one 4-byte load and store, its alpha
                    // overwritten by the next pixel (the last one's three
                    // bytes alone): pointers and wrapping arithmetic, no
                    // overflow check per sample (10.6 M of a 20 MP JPEG's
                    // thumbnail's instructions with them, 5.0 M a byte at a time).
                    let from = UnsafeRawPointer(source.baseAddress!)
                    let to = UnsafeMutableRawPointer(target.baseAddress! + offset)
                    guard pixelCount > 0 else { return }
                    for pixel in 0..<(pixelCount - 1) {
                        let rgba = from.loadUnaligned(fromByteOffset: pixel &* 4, as: UInt32.self)
                        to.storeBytes(of: rgba, toByteOffset: pixel &* 3, as: UInt32.self)
                    }
                    let last = pixelCount - 1
                    for channel in 0..<3 {
                        to.storeBytes(
                            of: from.load(fromByteOffset: last &* 4 &+ channel, as: UInt8.self),
                            toByteOffset: last &* 3 &+ channel, as: UInt8.self)
                    }
                }
                offset += pixelCount * 3
            }
        }
    }
}
