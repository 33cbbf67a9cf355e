extension ImagePlaceholder {
    /// The largest side of the decode placeholders are computed from: ThumbHash's own limit.
    static let sampleSide = 100

    /// The three placeholders of `image`'s first frame (sRGB, at most
    /// `sampleSide` on each side).
    init(of image: DecodedImage) {
        let pixels = image.frames[0].pixels
        self.init(
            thumbHash: Self.base64(ThumbHash.encode(rgba: pixels, width: image.width, height: image.height)),
            blurHash: BlurHash.encode(rgba: pixels, width: image.width, height: image.height),
            dominantColour: DominantColour.of(rgba: pixels))
    }

    /// RFC 4648 base64 with padding.
    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var out = ""
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let chunk = bytes[start..<min(start + 3, bytes.count)]
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for index in 0..<4 {
                out.append(index <= chunk.count ? alphabet[value >> (18 - 6 * index) & 63] : "=")
            }
        }
        return out
    }
}
