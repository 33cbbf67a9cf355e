/// Samples held as planes (libheif's RGB before it interleaves, HEVC's
/// Y, Cb and Cr), resampled with `resampleOpaque`'s arithmetic.
extension AreaResampler {
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
    /// asked for in ascending order. Only the output rows `outY` are made
    /// (each from its own source rows, `sourceRows(of:)`, so a plane that
    /// arrives a band of rows at a time is shrunk a band at a time, with
    /// the same arithmetic: `HEVCGridStrips`).
    func resamplePlane(
        outY: Range<Int>? = nil, into output: UnsafeMutablePointer<Float>,
        row: (Int) throws -> UnsafePointer<UInt8>
    ) rethrows {
        let samples = sourceWidth
        let line = UnsafeMutablePointer<Float>.allocate(capacity: samples)
        defer { line.deallocate() }
        let width = self.width
        try rows.withBuffers { rowStart, rowCount, rowOffset, rowWeights in
            try columns.withBuffers { start, count, offset, weights in
                for y in outY ?? 0..<height {
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
}
