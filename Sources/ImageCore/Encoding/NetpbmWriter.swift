/// Netpbm output: PAM (RGBA) and PPM (RGB). Several images in one stream are
/// simply concatenated, which every Netpbm tool reads frame by frame.
enum NetpbmWriter {
    /// Every frame as a PAM image with `TUPLTYPE RGB_ALPHA`.
    static func pam(_ image: DecodedImage) -> [UInt8] {
        let header = Array("P7\nWIDTH \(image.width)\nHEIGHT \(image.height)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n".utf8)
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
        let header = Array("P6\n\(image.width) \(image.height)\n255\n".utf8)
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
