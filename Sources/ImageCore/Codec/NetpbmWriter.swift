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
        var out = [UInt8](repeating: 0, count: (header.count + pixelCount * 3) * image.frames.count)
        out.withUnsafeMutableBufferPointer { target in
            var offset = 0
            for frame in image.frames {
                for byte in header {
                    target[offset] = byte
                    offset += 1
                }
                frame.pixels.withUnsafeBufferPointer { source in
                    // Pointers and wrapping arithmetic: no overflow check per sample
                    // (10.6 M of a 20 MP JPEG's thumbnail's instructions with them).
                    let from = source.baseAddress!, to = target.baseAddress! + offset
                    for pixel in 0..<pixelCount {
                        let (rgba, rgb) = (from + pixel &* 4, to + pixel &* 3)
                        rgb[0] = rgba[0]
                        rgb[1] = rgba[1]
                        rgb[2] = rgba[2]
                    }
                }
                offset += pixelCount * 3
            }
        }
        return out
    }
}
