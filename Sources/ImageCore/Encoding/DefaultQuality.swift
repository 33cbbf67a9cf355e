/// The quality an encoding gets when `--quality` is not given (see the man
/// page's `--quality`): for WebP it follows the source. A lossless WebP of a
/// JPEG or a lossy WebP stores the source's compression noise exactly: a
/// 128 px thumbnail of a lossy WebP photo took 11 808 bytes lossless and
/// 1 632 at 75, and an animated one came out larger than its source.
enum DefaultQuality {
    /// cwebp's default, and vipsthumbnail's.
    static let lossyWebP = 75

    /// WebP's quality for pixels decoded from `bytes` in `source`: 75 when
    /// the source was coded lossy (JPEG, AVIF, HEIC, a WebP with a `VP8 `
    /// frame), else nil, lossless (PNG, GIF, a lossless WebP, and JPEG XL,
    /// whose header does not say cheaply whether it is lossy).
    static func webp(from source: ImageFormat, bytes: [UInt8]) -> Int? {
        switch source {
        case .jpeg, .avif, .heif: lossyWebP
        case .webp: hasLossyFrame(webp: bytes) ? lossyWebP : nil
        case .png, .gif, .jxl: nil
        }
    }

    /// Whether a WebP codes any frame lossy: a `VP8 ` chunk at the top
    /// level, or first in an animation frame's (`ANMF`) data after its
    /// optional `ALPH`. Chunks are walked by their sizes, never past the end.
    static func hasLossyFrame(webp bytes: [UInt8]) -> Bool {
        let lossy: [UInt8] = Array("VP8 ".utf8), frame: [UInt8] = Array("ANMF".utf8)
        func walk(from start: Int, to end: Int, inFrame: Bool) -> Bool {
            var index = start
            while index + 8 <= end {
                let tag = bytes[index..<(index + 4)]
                if tag.elementsEqual(lossy) { return true }
                let size =
                    Int(bytes[index + 4]) | Int(bytes[index + 5]) << 8 | Int(bytes[index + 6]) << 16
                    | Int(bytes[index + 7]) << 24
                let payloadEnd = min(end, index + 8 + size)
                // An ANMF payload: 16 bytes of frame header, then the frame's chunks (never nested).
                if !inFrame, tag.elementsEqual(frame), walk(from: index + 24, to: payloadEnd, inFrame: true) {
                    return true
                }
                guard size <= end - index - 8 else { return false }
                index += 8 + size + (size & 1)
            }
            return false
        }
        return walk(from: 12, to: bytes.count, inFrame: false)
    }
}
