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
    private let columns: Spans
    private let rows: Spans

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

    /// Opaque rows of `channels` (3: RGB, 4: RGBA whose alpha is ignored)
    /// bytes per pixel, resampled into the output pixels `outX` × `outY` of
    /// `output` (RGBA, alpha 255), rows first: each output row is the
    /// weighted sum of the source rows under it, and then its columns; no
    /// premultiplication. `row(y)` gives source row `y`, asked for in
    /// ascending order (a row shared by two output rows twice), and used
    /// before the next is asked for: a decoder can hand rows over one at a
    /// time as it makes them (`JPEGDecoder.thumbnail`). Every output pixel
    /// is computed the same way whatever the rectangle, so a part equals
    /// the same part of the whole. A 20 MP JPEG's 1024 px thumbnail (1507 ×
    /// 848 decoded at 1/4, callgrind): 204 M instructions columns first on
    /// premultiplied RGBA, 121 M rows first a sample at a time, 60 M with a
    /// vector a pixel and no overflow checks, 27 M from RGB rows with the
    /// weights divided by their sums ahead (no division a pixel) and a
    /// column's taps read as contiguous pixels in an unrolled loop.
    func resampleOpaque(
        channels: Int, outX: Range<Int>, outY: Range<Int>, into output: UnsafeMutablePointer<UInt8>,
        row: (Int) throws -> UnsafePointer<UInt8>
    ) rethrows {
        guard !outX.isEmpty, !outY.isEmpty else { return }
        if channels == 4 {
            try resampleOpaque(channels: 4, outX, outY, output, row)
        } else {
            try resampleOpaque(channels: 3, outX, outY, output, row)
        }
    }

    /// `resampleOpaque` for a `channels` the caller makes a constant, so
    /// that each copy of the loops below is compiled for its pixel size.
    @inline(__always)
    private func resampleOpaque(
        channels: Int, _ outX: Range<Int>, _ outY: Range<Int>, _ output: UnsafeMutablePointer<UInt8>,
        _ row: (Int) throws -> UnsafePointer<UInt8>
    ) rethrows {
        // The samples of the source pixels under outX, as floats; wrapping
        // arithmetic for indices that cannot overflow (no trap checks in the loops).
        let first = columns.start[outX.lowerBound]
        let samples = (columns.start[outX.upperBound - 1] + columns.count[outX.upperBound - 1] - first) * channels
        let taps = ColumnTaps(columns, outX, first: first, bytesPerPixel: channels * 4)
        let line = Self.line(floats: samples, taps: taps)
        defer { line.deallocate() }
        let floats = line.bindMemory(to: Float.self, capacity: samples)
        let width = self.width
        try rows.withBuffers { rowStart, rowCount, rowOffset, rowWeights in
            for y in outY {
                let scale = Self.rowScale(rowWeights, from: rowOffset[y], count: rowCount[y])
                for k in 0..<rowCount[y] {
                    let source = try row(rowStart[y] &+ k) + first &* channels
                    Self.accumulate(
                        source, times: rowWeights[rowOffset[y] &+ k] * scale, into: floats, count: samples,
                        first: k == 0)
                }
                // A pixel is one vector load: (r, g, b, a) or, of RGB, (r, g, b, the next r), its
                // fourth lane cleared by the weights' (0).
                taps.sum(into: UnsafeMutableRawPointer(output + (y &* width &+ outX.lowerBound) &* 4)) {
                    line.loadUnaligned(fromByteOffset: $0, as: SIMD4<Float>.self)
                }
            }
        }
    }

    /// The float line a row pass adds source rows into: `floats`, then
    /// zeros for the vector loads the column taps make past its end (a
    /// column's padding taps, the fourth lane of an RGB pixel), which their
    /// zero weights clear only if the floats there are finite.
    private static func line(floats: Int, taps: ColumnTaps) -> UnsafeMutableRawPointer {
        let bytes = floats * 4, padding = taps.count * 16 + 16
        let line = UnsafeMutableRawPointer.allocate(byteCount: bytes + padding, alignment: 16)
        (line + bytes).initializeMemory(as: UInt8.self, repeating: 0, count: padding)
        return line
    }

    /// What each of an output row's source rows' weights is multiplied by,
    /// so that they sum to 1 (but for rounding): one division a row, none a pixel.
    @inline(__always)
    private static func rowScale(_ weights: UnsafeBufferPointer<Float>, from offset: Int, count: Int) -> Float {
        var total: Float = 0
        for k in 0..<count { total += weights[offset &+ k] }
        return 1 / total
    }

    /// One source row's part of an output row: `count` samples of `source`
    /// times `weight`, added into `target` (set, for the first source row).
    /// A loop over contiguous samples: the compiler vectorises it.
    @inline(__always)
    private static func accumulate(
        _ source: UnsafePointer<UInt8>, times weight: Float, into target: UnsafeMutablePointer<Float>, count: Int,
        first: Bool
    ) {
        if first {
            for i in 0..<count { target[i] = Float(source[i]) * weight }
        } else {
            for i in 0..<count { target[i] += Float(source[i]) * weight }
        }
    }

    /// Opaque RGB held as three planes of bytes (R, G, B: libheif's
    /// layout before it interleaves), resampled as `resampleOpaque` does
    /// interleaved RGB, with the same arithmetic in the same order, hence
    /// the same bytes: each output row's source rows are summed a plane at
    /// a time into three float lines, then each output pixel takes its
    /// columns' (r, g, b) from the three lines. `row(plane, y)` gives row
    /// `y` of plane 0, 1 or 2.
    func resamplePlanar(
        outX: Range<Int>, outY: Range<Int>, into output: UnsafeMutablePointer<UInt8>,
        row: (_ plane: Int, _ y: Int) throws -> UnsafePointer<UInt8>
    ) rethrows {
        guard !outX.isEmpty, !outY.isEmpty else { return }
        let first = columns.start[outX.lowerBound]
        let samples = columns.start[outX.upperBound - 1] + columns.count[outX.upperBound - 1] - first
        let planeBytes = samples * 4
        let taps = ColumnTaps(columns, outX, first: first, bytesPerPixel: 4)
        // Three planes, the padding after the last.
        let line = Self.line(floats: samples * 3, taps: taps)
        defer { line.deallocate() }
        let floats = line.bindMemory(to: Float.self, capacity: samples * 3)
        let width = self.width
        try rows.withBuffers { rowStart, rowCount, rowOffset, rowWeights in
            for y in outY {
                let scale = Self.rowScale(rowWeights, from: rowOffset[y], count: rowCount[y])
                for k in 0..<rowCount[y] {
                    let weight = rowWeights[rowOffset[y] &+ k] * scale
                    for plane in 0..<3 {
                        let source = try row(plane, rowStart[y] &+ k) + first
                        Self.accumulate(
                            source, times: weight, into: floats + plane &* samples, count: samples, first: k == 0)
                    }
                }
                taps.sum(into: UnsafeMutableRawPointer(output + (y &* width &+ outX.lowerBound) &* 4)) {
                    SIMD4(
                        line.load(fromByteOffset: $0, as: Float.self),
                        line.load(fromByteOffset: $0 &+ planeBytes, as: Float.self),
                        line.load(fromByteOffset: $0 &+ 2 &* planeBytes, as: Float.self), 0)
                }
            }
        }
    }

    /// One plane of bytes (`sourceWidth` × `sourceHeight`) averaged into
    /// `output` (`width` × `height` floats, unrounded), rows first as
    /// `resampleOpaque` does: for samples that are converted after the
    /// shrink (HEVC's Y, Cb and Cr, `HEVCThumbnail`), where a rounding here
    /// would be amplified by the conversion. `row(y)` gives source row `y`,
    /// asked for in ascending order.
    func resamplePlane(into output: UnsafeMutablePointer<Float>, row: (Int) throws -> UnsafePointer<UInt8>) rethrows {
        let samples = sourceWidth
        let line = UnsafeMutablePointer<Float>.allocate(capacity: samples)
        defer { line.deallocate() }
        let width = self.width
        try rows.withBuffers { rowStart, rowCount, rowOffset, rowWeights in
            try columns.withBuffers { start, count, offset, weights in
                for y in 0..<height {
                    var rowTotal: Float = 0
                    for k in 0..<rowCount[y] {
                        let weight = rowWeights[rowOffset[y] &+ k]
                        rowTotal += weight
                        Self.accumulate(
                            try row(rowStart[y] &+ k), times: weight, into: line, count: samples, first: k == 0)
                    }
                    let out = output + y &* width
                    for x in 0..<width {
                        var sum: Float = 0, total: Float = 0
                        for k in 0..<count[x] {
                            let weight = weights[offset[x] &+ k]
                            sum += line[start[x] &+ k] * weight
                            total += weight
                        }
                        out[x] = sum / (rowTotal * total)
                    }
                }
            }
        }
    }

    /// (r, g, b, 0) rounded to the nearest bytes (even on a tie), with a
    /// fourth lane of 255, and no conversion that checks its range: adding
    /// 1.5 × 2²³ leaves the rounded value in the float's low mantissa bits
    /// (1.5 × 2²³ + 255 for the fourth lane). No clamping: an average of
    /// bytes under weights that sum to 1 lies in 0...255 but for float
    /// rounding, far less than the half a step that would round past either end.
    @inline(__always)
    fileprivate static func quantizeOpaque(_ value: SIMD4<Float>) -> SIMD4<UInt8> {
        let rounded = value + SIMD4(12_582_912, 12_582_912, 12_582_912, 12_583_167)
        return SIMD4<UInt8>(truncatingIfNeeded: unsafeBitCast(rounded, to: SIMD4<UInt32>.self))
    }

    /// The source pixels under each output column of a range: a column's
    /// first pixel, as a byte offset into a line of float pixels, and the
    /// weights of it and the pixels after it (an area's pixels are
    /// contiguous), divided by their sum so that a pixel needs no division.
    /// The same number for every column (`count`, the most any has), each
    /// column's list padded with weight 0, which adds exactly nothing (the
    /// line's padding holds zeros): one loop of one length, unrolled for the
    /// usual counts. A weight is a vector (w, w, w, 0): it clears the
    /// fourth lane, which then becomes alpha 255 as the pixel is rounded.
    private struct ColumnTaps {
        let count: Int
        private let bytesPerPixel: Int
        private var offsets: [Int] = []
        private var weights: [SIMD4<Float>] = []

        init(_ columns: Spans, _ outX: Range<Int>, first: Int, bytesPerPixel: Int) {
            count = outX.reduce(1) { max($0, columns.count[$1]) }
            self.bytesPerPixel = bytesPerPixel
            offsets.reserveCapacity(outX.count)
            weights.reserveCapacity(outX.count * count)
            for x in outX {
                var total: Float = 0
                for k in 0..<columns.count[x] { total += columns.weights[columns.offset[x] + k] }
                offsets.append((columns.start[x] - first) * bytesPerPixel)
                for k in 0..<count {
                    let weight = k < columns.count[x] ? columns.weights[columns.offset[x] + k] / total : 0
                    weights.append(SIMD4(weight, weight, weight, 0))
                }
            }
        }

        /// Each column's pixel: its taps' pixels (`pixel(byteOffset)`)
        /// times their weights, summed in order and rounded, stored as
        /// RGBA with alpha 255 from `output` on.
        @inline(__always)
        func sum(into output: UnsafeMutableRawPointer, pixel: (Int) -> SIMD4<Float>) {
            switch count {
            case 1: sum(taps: 1, into: output, pixel)
            case 2: sum(taps: 2, into: output, pixel)
            case 3: sum(taps: 3, into: output, pixel)
            case 4: sum(taps: 4, into: output, pixel)
            default: sum(taps: count, into: output, pixel)
            }
        }

        /// `sum` for a `taps` the caller makes a constant: the compiler unrolls the loop.
        @inline(__always)
        private func sum(taps: Int, into output: UnsafeMutableRawPointer, _ pixel: (Int) -> SIMD4<Float>) {
            let bytesPerPixel = self.bytesPerPixel
            offsets.withUnsafeBufferPointer { offsets in
                weights.withUnsafeBufferPointer { weights in
                    for column in 0..<offsets.count {
                        let at = offsets[column], base = column &* taps
                        var sum = pixel(at) * weights[base]
                        for k in 1..<max(1, taps) {
                            sum += pixel(at &+ k &* bytesPerPixel) * weights[base &+ k]
                        }
                        output.storeBytes(
                            of: AreaResampler.quantizeOpaque(sum), toByteOffset: column &* 4, as: SIMD4<UInt8>.self)
                    }
                }
            }
        }
    }

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
    private struct Spans {
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
