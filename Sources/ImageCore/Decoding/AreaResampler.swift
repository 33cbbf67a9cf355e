/// Shrinks RGBA pixels by area averaging (a box filter with exact
/// fractional coverage): each output pixel is the mean of the source area it
/// covers. Averaging happens in sRGB values on premultiplied alpha, so
/// transparent pixels lend no colour to their neighbours; this matches
/// ImageMagick's `-scale`-style box results and is what `-resize` approaches
/// for large reductions. Separable: rows first, then columns.
enum AreaResampler {
    /// `pixels` (width × height RGBA) resampled to `newWidth` × `newHeight` (not larger).
    static func resample(_ pixels: [UInt8], width: Int, height: Int, to newWidth: Int, _ newHeight: Int) -> [UInt8] {
        if newWidth == width && newHeight == height { return pixels }
        let columns = weights(from: width, to: newWidth)
        let rows = weights(from: height, to: newHeight)
        // Premultiplied floats, rows resampled horizontally.
        var horizontal = [Float](repeating: 0, count: newWidth * height * 4)
        pixels.withUnsafeBufferPointer { source in
            horizontal.withUnsafeMutableBufferPointer { target in
                for y in 0..<height {
                    let row = y * width * 4
                    for (x, span) in columns.enumerated() {
                        var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                        for (offset, weight) in span.weights.enumerated() {
                            let index = row + (span.start + offset) * 4
                            let alpha = Float(source[index + 3]) * weight
                            r += Float(source[index]) * alpha
                            g += Float(source[index + 1]) * alpha
                            b += Float(source[index + 2]) * alpha
                            a += alpha
                        }
                        let out = (y * newWidth + x) * 4
                        target[out] = r
                        target[out + 1] = g
                        target[out + 2] = b
                        target[out + 3] = a
                    }
                }
            }
        }
        var result = [UInt8](repeating: 0, count: newWidth * newHeight * 4)
        horizontal.withUnsafeBufferPointer { source in
            result.withUnsafeMutableBufferPointer { target in
                for (y, span) in rows.enumerated() {
                    for x in 0..<newWidth {
                        var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                        for (offset, weight) in span.weights.enumerated() {
                            let index = ((span.start + offset) * newWidth + x) * 4
                            r += source[index] * weight
                            g += source[index + 1] * weight
                            b += source[index + 2] * weight
                            a += source[index + 3] * weight
                        }
                        let out = (y * newWidth + x) * 4
                        // Un-premultiply; `a` is the mean alpha (0...255).
                        if a > 0 {
                            target[out] = clamp(r / a)
                            target[out + 1] = clamp(g / a)
                            target[out + 2] = clamp(b / a)
                        }
                        target[out + 3] = clamp(a)
                    }
                }
            }
        }
        return result
    }

    /// For each output index, the first source index it covers and the
    /// weights (summing to 1) of the source pixels under it.
    static func weights(from size: Int, to newSize: Int) -> [(start: Int, weights: [Float])] {
        let scale = Double(size) / Double(newSize)
        return (0..<newSize).map { index in
            let begin = Double(index) * scale, end = Double(index + 1) * scale
            let first = Int(begin), last = min(size - 1, Int((end - 1e-9).rounded(.down)))
            var weights: [Float] = []
            for source in first...max(first, last) {
                let covered = min(end, Double(source + 1)) - max(begin, Double(source))
                weights.append(Float(covered / scale))
            }
            return (first, weights)
        }
    }

    private static func clamp(_ value: Float) -> UInt8 {
        UInt8(max(0, min(255, value.rounded())))
    }
}
