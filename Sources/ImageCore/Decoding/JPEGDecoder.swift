/// JPEG through libjpeg's own API (every sampling factor djpeg decodes),
/// with its default islow DCT and fancy upsampling, so the pixels equal
/// `djpeg -rgb -ppm`'s.
struct JPEGDecoder {
    let limits: DecodingLimits
    /// A CMYK profile to convert a CMYK or YCCK image through to sRGB,
    /// instead of djpeg's formula (`--colorspace srgb`).
    var cmykProfile: ColourProfile?
    /// Where an unusable profile is reported.
    var notes: EventLog = .silent

    /// Rows decoded per call when streaming: enough to amortise the calls,
    /// few enough to stay small.
    static let streamedRows = 16

    /// Header facts, the scan limit, and the end-of-image marker: what a
    /// download must pass before it is stored.
    func inspect(_ bytes: [UInt8]) throws -> ImageInfo {
        let info = try header(bytes)
        let (scans, complete) = JPEGMarkers.walk(bytes)
        guard scans <= limits.maxJPEGScans else {
            throw ImageCoreError.over(
                .scans, "too many JPEG scans: \(scans) exceeds the limit of \(limits.maxJPEGScans)")
        }
        // Checked before storing, so a body cut short is never cached.
        guard complete else { throw ImageCoreError(.image, "corrupt JPEG: truncated (no end-of-image marker)") }
        return info
    }

    /// Header facts only: the scan limit is enforced while decoding.
    func header(_ bytes: [UInt8]) throws -> ImageInfo {
        let header = try JPEGDecompression.reading(bytes) { $0.header }
        try limits.check(width: header.width, height: header.height)
        return ImageInfo(format: .jpeg, width: header.width, height: header.height, orientation: header.orientation)
    }

    /// Decodes to RGBA at full size.
    func decode(_ bytes: [UInt8]) throws -> DecodedImage {
        try decode(bytes) { _ in 8 }
    }

    /// A `size` thumbnail (not larger than the image, in stored order):
    /// decoded at the smallest DCT scale that still covers it, its rows
    /// area-averaged (`AreaResampler.resampleOpaque`) one by one as libjpeg
    /// makes them. No buffer holds the scaled decode (a 20 MP JPEG at 1/4:
    /// 1507 × 848, 5 MB as RGBA), and no pass checks its alpha. RGB rows,
    /// as djpeg writes them: the row pass then adds up three samples a
    /// pixel, not four (a pixel is still one vector load in the column pass).
    func thumbnail(_ bytes: [UInt8], size: (width: Int, height: Int)) throws -> DecodedImage {
        try JPEGDecompression.reading(bytes) { jpeg in
            let header = jpeg.header
            try limits.check(width: header.width, height: header.height)
            let eighths = JPEGDecompression.scaleEighths(width: header.width, height: header.height, atLeast: size)
            convertsCMYK(jpeg, channels: 3)
            let decoded = try jpeg.start(scaleEighths: eighths, channels: 3, maxScans: limits.maxJPEGScans)
            let resampler = AreaResampler(from: decoded.width, decoded.height, to: size.width, size.height)
            let row = UnsafeMutableRawBufferPointer.allocate(byteCount: decoded.width * 3, alignment: 16)
            defer { row.deallocate() }
            var rowsRead = 0
            // Not zeroed first: resampleOpaque writes every pixel.
            let bytes = size.width * size.height * 4
            let pixels = try [UInt8](unsafeUninitializedCapacity: bytes) { output, count in
                count = bytes
                try resampler.resampleOpaque(
                    channels: 3, outX: 0..<size.width, outY: 0..<size.height, into: output.baseAddress!
                ) { wanted in
                    // Rows come in order; one asked for again is still in `row`.
                    while rowsRead <= wanted {
                        guard try jpeg.readRows(into: row.baseAddress!, stride: row.count, maxRows: 1) == 1 else {
                            throw ImageCoreError(.image, "corrupt JPEG: fewer rows than its height")
                        }
                        rowsRead += 1
                    }
                    return UnsafePointer(row.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
            try jpeg.finish()
            return DecodedImage(format: .jpeg, width: size.width, height: size.height, frames: [.init(pixels: pixels)])
        }
    }

    /// Decodes to RGBA at `scale`(header)/8 of full size (1...16), as `djpeg -scale M/8` does.
    func decode(_ bytes: [UInt8], scaleEighths scale: (JPEGDecompression.Header) -> Int) throws -> DecodedImage {
        try JPEGDecompression.reading(bytes) { jpeg in
            let header = jpeg.header
            try limits.check(width: header.width, height: header.height)
            let eighths = scale(header)
            convertsCMYK(jpeg, channels: 4)
            let size = try jpeg.start(scaleEighths: eighths, channels: 4, maxScans: limits.maxJPEGScans)
            let stride = size.width * 4
            var pixels = [UInt8](repeating: 0, count: stride * size.height)
            try pixels.withUnsafeMutableBytes { buffer in
                var row = 0
                while row < size.height {
                    let count = try jpeg.readRows(
                        into: buffer.baseAddress! + row * stride, stride: stride,
                        maxRows: size.height - row)
                    guard count > 0 else { throw ImageCoreError(.image, "corrupt JPEG: fewer rows than its height") }
                    row += count
                }
            }
            try jpeg.finish()
            return DecodedImage(format: .jpeg, width: size.width, height: size.height, frames: [.init(pixels: pixels)])
        }
    }

    /// Decodes at full size, handing rows of `channels` (3: RGB, 4: RGBA)
    /// bytes per pixel to `sink` a few at a time, with no full-frame buffer.
    func stream(_ bytes: [UInt8], channels: Int, to sink: inout some RowSink) throws {
        try JPEGDecompression.reading(bytes) { jpeg in
            try limits.check(width: jpeg.header.width, height: jpeg.header.height)
            convertsCMYK(jpeg, channels: channels)
            let size = try jpeg.start(channels: channels, maxScans: limits.maxJPEGScans)
            try sink.begin(width: size.width, height: size.height, channels: channels)
            let stride = size.width * channels
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: stride * Self.streamedRows, alignment: 16)
            defer { chunk.deallocate() }
            var row = 0
            while row < size.height {
                let count = try jpeg.readRows(into: chunk.baseAddress!, stride: stride, maxRows: Self.streamedRows)
                guard count > 0 else { throw ImageCoreError(.image, "corrupt JPEG: fewer rows than its height") }
                try sink.write(rows: UnsafeRawBufferPointer(rebasing: chunk[..<(count * stride)]))
                row += count
            }
            try jpeg.finish()
        }
    }

    /// Sets `jpeg` to convert CMYK through `cmykProfile`, when it is a CMYK
    /// image and the profile can be used (otherwise djpeg's formula stays).
    private func convertsCMYK(_ jpeg: JPEGDecompression, channels: Int) {
        guard jpeg.header.isCMYK, let cmykProfile else { return }
        do {
            let layout = ColourTransform.Layout.cmyk(inverted: jpeg.header.isAdobe)
            jpeg.convertCMYK(through: try ColourTransform(cmykProfile, layout: layout, outputChannels: channels))
        } catch {
            notes.emit("colour: \(error)")
        }
    }
}
