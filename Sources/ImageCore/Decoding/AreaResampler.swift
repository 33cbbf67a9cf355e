/// Shrinks RGBA pixels by area averaging (a box filter with exact
/// fractional coverage): each output pixel is the mean of the source area it
/// covers. Averaging happens in sRGB values on premultiplied alpha, so
/// transparent pixels lend no colour to their neighbours; this matches
/// ImageMagick's `-scale`-style box results and is what `-resize` approaches
/// for large reductions. Separable: each row's columns, then the rows; an
/// opaque image (every JPEG) rows first, without premultiplying
/// (`resampleOpaque`).
///
/// An output pixel depends only on the source pixels under it, so a frame
/// of an animation that changed in one rectangle is resampled there alone
/// (`resample(_:changed:into:opaque:)`), with the same arithmetic, hence the
/// same bytes, as a resampling of the whole frame.
struct AreaResampler {
    let sourceWidth: Int
    let sourceHeight: Int
    let width: Int
    let height: Int
    let columns: Spans
    let rows: Spans

    /// A resampler from `sourceWidth` × `sourceHeight` to `width` × `height` (not larger).
    init(from sourceWidth: Int, _ sourceHeight: Int, to width: Int, _ height: Int) {
        (self.sourceWidth, self.sourceHeight, self.width, self.height) = (sourceWidth, sourceHeight, width, height)
        columns = Spans(from: sourceWidth, to: width)
        rows = Spans(from: sourceHeight, to: height)
    }

    /// `pixels` (width × height RGBA) resampled to `newWidth` × `newHeight` (not larger).
    static func resample(_ pixels: [UInt8], width: Int, height: Int, to newWidth: Int, _ newHeight: Int) -> [UInt8] {
        if newWidth == width && newHeight == height { return pixels }
        let resampler = AreaResampler(from: width, height, to: newWidth, newHeight)
        var result = [UInt8](repeating: 0, count: newWidth * newHeight * 4)
        pixels.withUnsafeBytes {
            _ = resampler.resample(
                $0, changed: PixelRect(width: width, height: height), into: &result, opaque: isOpaque($0))
        }
        return result
    }

    /// The source rows output row `y` averages.
    func sourceRows(of y: Int) -> Range<Int> { rows.start[y]..<(rows.start[y] + rows.count[y]) }

    /// Whether every pixel of `pixels` (RGBA) has alpha 255: a JPEG, most
    /// photos, which `resampleOpaque` then takes.
    /// Eight pixels at a time, as four words whose alpha bytes are ANDed,
    /// stopping at the first eight with one below 255: a byte at a time to
    /// the end cost 26 M instructions of the 64 px thumbnail of a 56-frame
    /// GIF whose frames are transparent in their first row.
    static func isOpaque(_ pixels: UnsafeRawBufferPointer) -> Bool {
        let alphas = UInt64(littleEndian: 0xFF00_0000_FF00_0000)
        var index = 0
        while index + 32 <= pixels.count {
            let all =
                pixels.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                & pixels.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self)
                & pixels.loadUnaligned(fromByteOffset: index + 16, as: UInt64.self)
                & pixels.loadUnaligned(fromByteOffset: index + 24, as: UInt64.self)
            if all & alphas != alphas { return false }
            index += 32
        }
        var all: UInt8 = 255
        index += 3
        while index < pixels.count {
            all &= pixels[index]
            index += 4
        }
        return all == 255
    }

    /// Recomputes, in `output` (`width` × `height` RGBA), every output pixel
    /// whose source area meets `changed` (a rectangle of `source`, the
    /// `sourceWidth` × `sourceHeight` RGBA frame), and returns the output
    /// rectangle it rewrote. `opaque`: every alpha byte of `source` is 255
    /// (`isOpaque`), which `resampleOpaque` then takes.
    func resample(
        _ source: UnsafeRawBufferPointer, changed: PixelRect, into output: inout [UInt8], opaque: Bool = false
    ) -> PixelRect {
        let outX = columns.outputs(meeting: changed.x), outY = rows.outputs(meeting: changed.y)
        guard !outX.isEmpty, !outY.isEmpty else { return .empty }
        let base = source.baseAddress!.assumingMemoryBound(to: UInt8.self), rowLength = sourceWidth * 4
        if opaque {
            output.withUnsafeMutableBufferPointer { output in
                resampleOpaque(channels: 4, outX: outX, outY: outY, into: output.baseAddress!) {
                    UnsafePointer(base + $0 * rowLength)
                }
            }
            return PixelRect(x: outX, y: outY)
        }
        let firstRow = rows.start[outY.lowerBound]
        let lastRow = rows.start[outY.upperBound - 1] + rows.count[outY.upperBound - 1]
        let rowFloats = outX.count * 4
        // Premultiplied floats, the rows under outY resampled horizontally over outX.
        var horizontal = [Float](repeating: 0, count: rowFloats * (lastRow - firstRow))
        horizontal.withUnsafeMutableBufferPointer { target in
            for y in firstRow..<lastRow {
                premultipliedColumns(
                    of: base + y * rowLength, outX: outX, into: target.baseAddress! + (y - firstRow) * rowFloats)
            }
        }
        horizontal.withUnsafeBufferPointer { horizontal in
            output.withUnsafeMutableBufferPointer { target in
                for y in outY {
                    unpremultipliedRow(
                        y, outX: outX, from: horizontal.baseAddress!, firstRow: firstRow, into: target.baseAddress!)
                }
            }
        }
        return PixelRect(x: outX, y: outY)
    }

    /// The columns pass of an image with alpha: source row `source`
    /// (`sourceWidth` RGBA pixels) averaged over the output columns `outX`,
    /// premultiplied: (r·a, g·a, b·a, a) weighted sums, four floats a
    /// column from `target` on. A row needs only itself, so a decoder's
    /// rows can be taken as they arrive (`ScaledRows`).
    func premultipliedColumns(
        of source: UnsafePointer<UInt8>, outX: Range<Int>, into target: UnsafeMutablePointer<Float>
    ) {
        columns.withBuffers { start, count, offset, weights in
            for x in outX {
                var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                for k in 0..<count[x] {
                    let index = (start[x] + k) * 4
                    let alpha = Float(source[index + 3]) * weights[offset[x] + k]
                    r += Float(source[index]) * alpha
                    g += Float(source[index + 1]) * alpha
                    b += Float(source[index + 2]) * alpha
                    a += alpha
                }
                let out = (x - outX.lowerBound) * 4
                target[out] = r
                target[out + 1] = g
                target[out + 2] = b
                target[out + 3] = a
            }
        }
    }

    /// The rows pass of an image with alpha: output row `y`'s pixels `outX`
    /// of `output` (`width` × `height` RGBA), the weighted sum of its source
    /// rows' `premultipliedColumns` (`outX.count` × 4 floats a row, one row
    /// after another from source row `firstRow` at `horizontal`), then
    /// un-premultiplied.
    func unpremultipliedRow(
        _ y: Int, outX: Range<Int>, from horizontal: UnsafePointer<Float>, firstRow: Int,
        into output: UnsafeMutablePointer<UInt8>
    ) {
        let span = outX.count, width = self.width
        rows.withBuffers { start, count, offset, weights in
            for x in outX {
                var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                for k in 0..<count[y] {
                    let index = ((start[y] + k - firstRow) * span + x - outX.lowerBound) * 4
                    let weight = weights[offset[y] + k]
                    r += horizontal[index] * weight
                    g += horizontal[index + 1] * weight
                    b += horizontal[index + 2] * weight
                    a += horizontal[index + 3] * weight
                }
                let out = (y * width + x) * 4
                // Un-premultiply; `a` is the mean alpha (0...255).
                if a > 0 {
                    output[out] = Self.clamp(r / a)
                    output[out + 1] = Self.clamp(g / a)
                    output[out + 2] = Self.clamp(b / a)
                } else {
                    (output[out], output[out + 1], output[out + 2]) = (0, 0, 0)
                }
                output[out + 3] = Self.clamp(a)
            }
        }
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

    /// `value` rounded half away from zero, as `rounded()`, and clamped to
    /// 0...255. Without SSE4.1 `rounded()` is a call to libm's roundf per
    /// sample (47 M of a 20 MP thumbnail's 878 M instructions); truncation
    /// is one instruction, and the fraction it leaves is exact below 2^23.
    private static func clamp(_ value: Float) -> UInt8 {
        let clamped = max(0, min(255, value))
        let whole = UInt8(clamped)
        return clamped - Float(whole) >= 0.5 ? whole + 1 : whole
    }

    /// `weights(from:to:)` laid flat, for the inner loops.
    struct Spans {
        var start: [Int] = []
        var count: [Int] = []
        var offset: [Int] = []
        var weights: [Float] = []

        init(from size: Int, to newSize: Int) {
            for (first, span) in AreaResampler.weights(from: size, to: newSize) {
                start.append(first)
                count.append(span.count)
                offset.append(weights.count)
                weights += span
            }
        }

        /// The outputs whose source span meets `range`.
        func outputs(meeting range: Range<Int>) -> Range<Int> {
            guard !range.isEmpty else { return 0..<0 }
            guard let first = start.indices.first(where: { start[$0] + count[$0] > range.lowerBound }) else {
                return 0..<0
            }
            var end = first
            while end < start.count && start[end] < range.upperBound { end += 1 }
            return first..<end
        }

        func withBuffers<Result>(
            _ body: (
                UnsafeBufferPointer<Int>, UnsafeBufferPointer<Int>, UnsafeBufferPointer<Int>,
                UnsafeBufferPointer<Float>
            ) throws -> Result
        ) rethrows -> Result {
            try start.withUnsafeBufferPointer { start in
                try count.withUnsafeBufferPointer { count in
                    try offset.withUnsafeBufferPointer { offset in
                        try weights.withUnsafeBufferPointer { try body(start, count, offset, $0) }
                    }
                }
            }
        }

    }
}
