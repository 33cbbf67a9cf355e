/// EXIF orientation (TIFF tag 0x0112): how a camera's stored pixels must be
/// turned to be shown upright. Values 1–8 as EXIF defines them; 1 is "as
/// stored".
public enum EXIFOrientation {
    /// The orientation in a JPEG's EXIF (APP1) segment; 1 when there is none
    /// or it cannot be read.
    public static func read(jpeg bytes: [UInt8]) -> Int {
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            if marker == 0xDA || marker == 0xD9 { break }  // start of scan: no more metadata
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2, index + 2 + length <= bytes.count else { break }
            if marker == 0xE1, length >= 16, Array(bytes[(index + 4)..<(index + 10)]) == Array("Exif\0\0".utf8) {
                return readTIFF(bytes[(index + 10)..<(index + 2 + length)]) ?? 1
            }
            index += 2 + length
        }
        return 1
    }

    /// The orientation in an EXIF payload (a WebP "EXIF" chunk): a TIFF
    /// structure, sometimes behind an "Exif\0\0" prefix; 1 if unreadable.
    public static func read(exif bytes: [UInt8]) -> Int {
        let prefix = Array("Exif\0\0".utf8)
        let tiff = bytes.starts(with: prefix) ? bytes[prefix.count...] : bytes[...]
        return readTIFF(tiff) ?? 1
    }

    /// Tag 0x0112 of IFD0 in a TIFF structure.
    private static func readTIFF(_ tiff: ArraySlice<UInt8>) -> Int? {
        let base = tiff.startIndex
        guard tiff.count >= 8 else { return nil }
        let little = tiff[base] == 0x49 && tiff[base + 1] == 0x49
        guard little || (tiff[base] == 0x4D && tiff[base + 1] == 0x4D) else { return nil }
        func read16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= tiff.count else { return nil }
            let (a, b) = (Int(tiff[base + offset]), Int(tiff[base + offset + 1]))
            return little ? b << 8 | a : a << 8 | b
        }
        func read32(_ offset: Int) -> Int? {
            guard let high = read16(little ? offset + 2 : offset), let low = read16(little ? offset : offset + 2) else {
                return nil
            }
            return high << 16 | low
        }
        guard let ifd = read32(4), let count = read16(ifd) else { return nil }
        for entry in 0..<min(count, 512) {
            let offset = ifd + 2 + entry * 12
            guard let tag = read16(offset) else { return nil }
            if tag == 0x0112, let value = read16(offset + 8), (1...8).contains(value) { return value }
        }
        return nil
    }

    /// Whether `orientation` swaps width and height (the 90° turns).
    public static func swapsDimensions(_ orientation: Int) -> Bool { orientation >= 5 }

    /// `image` turned upright per `orientation`, every frame.
    static func apply(_ orientation: Int, to image: DecodedImage) -> DecodedImage {
        guard (2...8).contains(orientation) else { return image }
        let (width, height) = (image.width, image.height)
        let swapped = swapsDimensions(orientation)
        let (outWidth, outHeight) = swapped ? (height, width) : (width, height)
        var result = image
        result.width = outWidth
        result.height = outHeight
        result.frames = image.frames.map { frame in
            var out = [UInt8](repeating: 0, count: frame.pixels.count)
            frame.pixels.withUnsafeBufferPointer { source in
                out.withUnsafeMutableBufferPointer { target in
                    for y in 0..<outHeight {
                        for x in 0..<outWidth {
                            // Where output (x, y) comes from in the stored pixels.
                            let (sx, sy): (Int, Int)
                            switch orientation {
                            case 2: (sx, sy) = (width - 1 - x, y)
                            case 3: (sx, sy) = (width - 1 - x, height - 1 - y)
                            case 4: (sx, sy) = (x, height - 1 - y)
                            case 5: (sx, sy) = (y, x)
                            case 6: (sx, sy) = (y, height - 1 - x)
                            case 7: (sx, sy) = (width - 1 - y, height - 1 - x)
                            default: (sx, sy) = (width - 1 - y, x)
                            }
                            let from = (sy * width + sx) * 4, to = (y * outWidth + x) * 4
                            target[to] = source[from]
                            target[to + 1] = source[from + 1]
                            target[to + 2] = source[from + 2]
                            target[to + 3] = source[from + 3]
                        }
                    }
                }
            }
            var turned = frame
            turned.pixels = out
            return turned
        }
        return result
    }
}
