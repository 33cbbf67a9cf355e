#if canImport(Glibc)
    import Glibc
#endif

/// ThumbHash (Evan Wallace, evanw/thumbhash): an image in about 25 bytes,
/// its luminance, two chroma channels and alpha as a few DCT coefficients
/// each, with the aspect ratio. Written from the reference encoder
/// (`rgbaToThumbHash`), in Double as its JavaScript is, rounding as
/// `Math.round` does (every value rounded is at least zero).
enum ThumbHash {
    /// The hash of `rgba` (unpremultiplied, `width` × `height`, each at
    /// most 100: the reference refuses larger images).
    static func encode(rgba: [UInt8], width w: Int, height h: Int) -> [UInt8] {
        precondition(w > 0 && h > 0 && w <= 100 && h <= 100 && rgba.count == w * h * 4)
        // The average colour, weighted by alpha.
        var (avgR, avgG, avgB, avgA) = (0.0, 0.0, 0.0, 0.0)
        for pixel in stride(from: 0, to: rgba.count, by: 4) {
            let alpha = Double(rgba[pixel + 3]) / 255
            avgR += alpha / 255 * Double(rgba[pixel])
            avgG += alpha / 255 * Double(rgba[pixel + 1])
            avgB += alpha / 255 * Double(rgba[pixel + 2])
            avgA += alpha
        }
        if avgA > 0 {
            avgR /= avgA
            avgG /= avgA
            avgB /= avgA
        }
        let hasAlpha = avgA < Double(w * h)
        let lLimit = hasAlpha ? 5 : 7  // fewer luminance coefficients when alpha needs room
        let longer = Double(max(w, h))
        let lx = max(1, Int(round(Double(lLimit * w) / longer)))
        let ly = max(1, Int(round(Double(lLimit * h) / longer)))
        // RGBA to LPQA, composited over the average colour.
        var (l, p, q, a) = ([Double](), [Double](), [Double](), [Double]())
        for pixel in stride(from: 0, to: rgba.count, by: 4) {
            let alpha = Double(rgba[pixel + 3]) / 255
            let r = avgR * (1 - alpha) + alpha / 255 * Double(rgba[pixel])
            let g = avgG * (1 - alpha) + alpha / 255 * Double(rgba[pixel + 1])
            let b = avgB * (1 - alpha) + alpha / 255 * Double(rgba[pixel + 2])
            l.append((r + g + b) / 3)
            p.append((r + g) / 2 - b)
            q.append(r - g)
            a.append(alpha)
        }
        let (lDC, lAC, lScale) = channel(l, w, h, nx: max(3, lx), ny: max(3, ly))
        let (pDC, pAC, pScale) = channel(p, w, h, nx: 3, ny: 3)
        let (qDC, qAC, qScale) = channel(q, w, h, nx: 3, ny: 3)
        let (aDC, aAC, aScale) = hasAlpha ? channel(a, w, h, nx: 5, ny: 5) : (1, [], 1)
        let isLandscape = w > h
        let header24 =
            round(63 * lDC) | round(31.5 + 31.5 * pDC) << 6 | round(31.5 + 31.5 * qDC) << 12
            | round(31 * lScale) << 18 | (hasAlpha ? 1 << 23 : 0)
        let header16 =
            (isLandscape ? ly : lx) | round(63 * pScale) << 3 | round(63 * qScale) << 9 | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [header24 & 255, header24 >> 8 & 255, header24 >> 16, header16 & 255, header16 >> 8].map {
            UInt8(truncatingIfNeeded: $0)
        }
        if hasAlpha { hash.append(UInt8(truncatingIfNeeded: round(15 * aDC) | round(15 * aScale) << 4)) }
        // The coefficients, four bits each, two to a byte, low nibble first.
        for (index, factor) in (lAC + pAC + qAC + aAC).enumerated() {
            let nibble = UInt8(truncatingIfNeeded: round(15 * factor))
            if index & 1 == 0 { hash.append(nibble) } else { hash[hash.count - 1] |= nibble << 4 }
        }
        return hash
    }

    /// The DC term and the AC terms (scaled into 0...1) of one channel over
    /// the triangle of frequencies `cx * ny < nx * (ny - cy)`, and their scale.
    private static func channel(
        _ values: [Double], _ w: Int, _ h: Int, nx: Int, ny: Int
    ) -> (dc: Double, ac: [Double], scale: Double) {
        var (dc, ac, scale) = (0.0, [Double](), 0.0)
        var fx = [Double](repeating: 0, count: w)
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                for x in 0..<w { fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) }
                var f = 0.0
                for y in 0..<h {
                    let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                    for x in 0..<w { f += values[x + y * w] * fx[x] * fy }
                }
                f /= Double(w * h)
                if cx > 0 || cy > 0 {
                    ac.append(f)
                    scale = max(scale, abs(f))
                } else {
                    dc = f
                }
                cx += 1
            }
        }
        if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
        return (dc, ac, scale)
    }

    /// JavaScript's `Math.round` (halves up), as an integer.
    private static func round(_ value: Double) -> Int { Int((value + 0.5).rounded(.down)) }
}
