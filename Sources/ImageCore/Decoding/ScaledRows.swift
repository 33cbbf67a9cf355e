/// A still image's thumbnail made from rows a decoder pushes to it
/// (`RowSink`), top to bottom: each output row is averaged as soon as the
/// source rows under it have arrived, and the rows no later output row
/// needs are dropped, so it holds the output and a few source rows, never
/// the decoded image (a 20 MP JPEG XL: 80 MB as RGBA). The bytes equal
/// those of the whole image resampled (`AreaResampler.resample`): RGB rows
/// are averaged as opaque (`resampleOpaque`); RGBA rows premultiplied
/// (`premultipliedColumns` as each row arrives, `unpremultipliedRow`),
/// and also as opaque for as long as every alpha so far is 255, since the
/// whole image, if every alpha is, takes the opaque path.
struct ScaledRows: RowSink {
    let resampler: AreaResampler
    /// The opaque average (RGBA, alpha 255), while the rows can be opaque.
    private var opaquePixels: [UInt8]
    /// The premultiplied average of RGBA rows (empty for RGB).
    private var blendedPixels: [UInt8] = []
    /// Source rows kept, from `pendingFirst` on, `rowBytes` each, while the rows can be opaque.
    private var pending: [UInt8] = []
    /// Of RGBA rows: their `premultipliedColumns`, from `pendingFirst` on, `width` × 4 floats each.
    private var columnSums: [Float] = []
    private var pendingFirst = 0
    /// Source rows received.
    private var received = 0
    /// The first output row not yet made.
    private var nextOutput = 0
    private var channels = 3
    /// Whether every alpha so far is 255 (always, of RGB rows).
    private var opaque = true

    /// A thumbnail of `size` of a `sourceWidth` × `sourceHeight` image (`size` not larger).
    init(from sourceWidth: Int, _ sourceHeight: Int, to size: (width: Int, height: Int)) {
        resampler = AreaResampler(from: sourceWidth, sourceHeight, to: size.width, size.height)
        opaquePixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
    }

    /// The thumbnail, RGBA: whole once `finish` returns.
    var pixels: [UInt8] { opaque ? opaquePixels : blendedPixels }

    /// `channels` 3: RGB, opaque; 4: RGBA, whose alpha is averaged.
    mutating func begin(width: Int, height: Int, channels: Int) throws {
        guard (width, height) == (resampler.sourceWidth, resampler.sourceHeight), channels == 3 || channels == 4 else {
            throw ImageCoreError(.failure, "a thumbnail of \(width)×\(height) was sized for another image")
        }
        self.channels = channels
        if channels == 4 { blendedPixels = opaquePixels }
    }

    mutating func write(rows: UnsafeRawBufferPointer) throws {
        guard !rows.isEmpty else { return }
        let (rowBytes, first, channels) = (resampler.sourceWidth * channels, pendingFirst, channels)
        let count = rows.count / rowBytes
        if channels == 4 {
            addColumnSums(rows, count: count)
            // The first pixel with alpha below 255: the opaque average is not the one wanted.
            if opaque, !AreaResampler.isOpaque(rows) {
                opaque = false
                (opaquePixels, pending) = ([], [])
            }
        }
        if opaque { pending.append(contentsOf: rows) }
        received += count
        var end = nextOutput
        while end < resampler.height, resampler.sourceRows(of: end).upperBound <= received { end += 1 }
        // Sixteen output rows at a time, or the last ones: each call of
        // resampleOpaque lays out its column taps again (1.2 M instructions
        // for 1024 columns of 5472; 269 M over a 20 MP thumbnail made a
        // call per 16 source rows, callgrind).
        guard end > nextOutput, end - nextOutput >= 16 || end == resampler.height else { return }
        let (resampler, outY) = (resampler, nextOutput..<end)
        if opaque {
            pending.withUnsafeBufferPointer { source in
                opaquePixels.withUnsafeMutableBufferPointer { output in
                    resampler.resampleOpaque(
                        channels: channels, outX: 0..<resampler.width, outY: outY, into: output.baseAddress!
                    ) { source.baseAddress! + ($0 - first) * rowBytes }
                }
            }
        }
        if channels == 4 {
            columnSums.withUnsafeBufferPointer { sums in
                blendedPixels.withUnsafeMutableBufferPointer { output in
                    for y in outY {
                        resampler.unpremultipliedRow(
                            y, outX: 0..<resampler.width, from: sums.baseAddress!, firstRow: first,
                            into: output.baseAddress!)
                    }
                }
            }
        }
        nextOutput = end
        let keep = end < resampler.height ? resampler.sourceRows(of: end).lowerBound : received
        if opaque { pending.removeFirst((keep - first) * rowBytes) }
        if channels == 4 { columnSums.removeFirst((keep - first) * resampler.width * 4) }
        pendingFirst = keep
    }

    /// Appends the `premultipliedColumns` of `count` RGBA rows.
    private mutating func addColumnSums(_ rows: UnsafeRawBufferPointer, count: Int) {
        let (resampler, rowFloats, rowBytes) = (resampler, resampler.width * 4, resampler.sourceWidth * 4)
        let start = columnSums.count
        columnSums.append(contentsOf: repeatElement(0, count: count * rowFloats))
        let source = rows.baseAddress!.assumingMemoryBound(to: UInt8.self)
        columnSums.withUnsafeMutableBufferPointer { sums in
            for row in 0..<count {
                resampler.premultipliedColumns(
                    of: source + row * rowBytes, outX: 0..<resampler.width,
                    into: sums.baseAddress! + start + row * rowFloats)
            }
        }
    }

    /// Throws unless every output row was made (the decoder gave every row).
    func finish() throws {
        guard nextOutput == resampler.height else {
            throw ImageCoreError(
                .image, "a thumbnail's source ended at row \(pendingFirst) of \(resampler.sourceHeight)")
        }
    }
}
