/// Opaque pixels resampled rows first, without premultiplying: every
/// JPEG's thumbnail, and any frame `isOpaque` finds has no transparency.
extension AreaResampler {
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
    static func line(floats: Int, taps: ColumnTaps) -> UnsafeMutableRawPointer {
        let bytes = floats * 4, padding = taps.count * 16 + 16
        let line = UnsafeMutableRawPointer.allocate(byteCount: bytes + padding, alignment: 16)
        (line + bytes).initializeMemory(as: UInt8.self, repeating: 0, count: padding)
        return line
    }

    /// What each of an output row's source rows' weights is multiplied by,
    /// so that they sum to 1 (but for rounding): one division a row, none a pixel.
    @inline(__always)
    static func rowScale(_ weights: UnsafeBufferPointer<Float>, from offset: Int, count: Int) -> Float {
        var total: Float = 0
        for k in 0..<count { total += weights[offset &+ k] }
        return 1 / total
    }

    /// One source row's part of an output row: `count` samples of `source`
    /// times `weight`, added into `target` (set, for the first source row).
    /// A loop over contiguous samples: the compiler vectorises it.
    @inline(__always)
    static func accumulate(
        _ source: UnsafePointer<UInt8>, times weight: Float, into target: UnsafeMutablePointer<Float>, count: Int,
        first: Bool
    ) {
        if first {
            for i in 0..<count { target[i] = Float(source[i]) * weight }
        } else {
            for i in 0..<count { target[i] += Float(source[i]) * weight }
        }
    }

    /// (r, g, b, 0) rounded to the nearest bytes (even on a tie), with a
    /// fourth lane of 255, and no conversion that checks its range: adding
    /// 1.5 × 2²³ leaves the rounded value in the float's low mantissa bits
    /// (1.5 × 2²³ + 255 for the fourth lane). No clamping: an average of
    /// bytes under weights that sum to 1 lies in 0...255 but for float
    /// rounding, far less than the half a step that would round past either end.
    @inline(__always)
    static func quantizeOpaque(_ value: SIMD4<Float>) -> SIMD4<UInt8> {
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
    struct ColumnTaps {
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
}
