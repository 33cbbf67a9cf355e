/// An opaque image's thumbnail made from rows a decoder pushes to it
/// (`RowSink`), top to bottom: each output row is averaged
/// (`AreaResampler.resampleOpaque`) as soon as the source rows under it
/// have arrived, and the rows no later output row needs are dropped, so it
/// holds the output and a few source rows, never the decoded image (a
/// 20 MP JPEG XL: 80 MB as RGBA). The bytes equal those of the whole image
/// resampled (`AreaResampler.resample` of an opaque image).
struct ScaledRows: RowSink {
    let resampler: AreaResampler
    /// The thumbnail, RGBA with alpha 255: whole once `finish` returns.
    private(set) var pixels: [UInt8]
    /// Source rows kept, from `pendingFirst` on, `rowBytes` each.
    private var pending: [UInt8] = []
    private var pendingFirst = 0
    /// The first output row not yet made.
    private var nextOutput = 0
    private var channels = 3

    /// A thumbnail of `size` of a `sourceWidth` × `sourceHeight` image (`size` not larger).
    init(from sourceWidth: Int, _ sourceHeight: Int, to size: (width: Int, height: Int)) {
        resampler = AreaResampler(from: sourceWidth, sourceHeight, to: size.width, size.height)
        pixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
    }

    mutating func begin(width: Int, height: Int, channels: Int) throws {
        guard (width, height) == (resampler.sourceWidth, resampler.sourceHeight), channels == 3 || channels == 4 else {
            throw ImageCoreError(.failure, "a thumbnail of \(width)×\(height) was sized for another image")
        }
        self.channels = channels
    }

    mutating func write(rows: UnsafeRawBufferPointer) throws {
        pending.append(contentsOf: rows)
        let (rowBytes, first, channels) = (resampler.sourceWidth * channels, pendingFirst, channels)
        let available = first + pending.count / rowBytes
        var end = nextOutput
        while end < resampler.height, resampler.sourceRows(of: end).upperBound <= available { end += 1 }
        // Sixteen output rows at a time, or the last ones: each call of
        // resampleOpaque lays out its column taps again (1.2 M instructions
        // for 1024 columns of 5472; 269 M over a 20 MP thumbnail made a
        // call per 16 source rows, callgrind).
        guard end > nextOutput, end - nextOutput >= 16 || end == resampler.height else { return }
        let (resampler, outY) = (resampler, nextOutput..<end)
        pending.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { output in
                resampler.resampleOpaque(
                    channels: channels, outX: 0..<resampler.width, outY: outY, into: output.baseAddress!
                ) { source.baseAddress! + ($0 - first) * rowBytes }
            }
        }
        nextOutput = end
        let keep = end < resampler.height ? resampler.sourceRows(of: end).lowerBound : available
        pending.removeFirst((keep - first) * rowBytes)
        pendingFirst = keep
    }

    /// Throws unless every output row was made (the decoder gave every row).
    func finish() throws {
        guard nextOutput == resampler.height else {
            throw ImageCoreError(
                .image, "a thumbnail's source ended at row \(pendingFirst) of \(resampler.sourceHeight)")
        }
    }
}
