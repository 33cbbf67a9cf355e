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
                    for pixel in 0..<pixelCount {
                        target[offset] = source[pixel * 4]
                        target[offset + 1] = source[pixel * 4 + 1]
                        target[offset + 2] = source[pixel * 4 + 2]
                        offset += 3
                    }
                }
            }
        }
        return out
    }
}
