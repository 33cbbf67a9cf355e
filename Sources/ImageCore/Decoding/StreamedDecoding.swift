extension ImageDecoding {
    /// Decodes every frame at full size and hands each to `sink` whole: the
    /// fallback for images that cannot be streamed.
    public func decode(_ bytes: [UInt8], channels: Int, into sink: inout some RowSink) throws {
        try Self.write(try decode(bytes, frame: nil, scale: nil), channels: channels, into: &sink)
    }

    /// Every frame of `image` into `sink`, one `begin` per frame, as RGB
    /// (converted a few rows at a time) or RGBA.
    static func write(_ image: DecodedImage, channels: Int, into sink: inout some RowSink) throws {
        var frames = FramesAsRows(sink, channels: channels)
        defer { sink = frames.rows }
        frames.begin(width: image.width, height: image.height)
        for frame in image.frames {
            try frame.pixels.withUnsafeBytes {
                try frames.write(frame: $0, durationMilliseconds: frame.durationMilliseconds)
            }
        }
    }
}

extension ImageDecoder {
    /// Decodes every frame at full size into `sink` (`channels` 3: RGB, 4:
    /// RGBA). A still image with nothing to turn is streamed as it decodes,
    /// with no full-frame buffer: JPEG scanline by scanline, a PNG (not
    /// interlaced) row by row, a WebP by libwebp's incremental decoder, a JPEG
    /// XL by libjxl's image-out callback (in bands of rows). A GIF, APNG,
    /// animated WebP or JPEG XL, or an AVIF, is decoded frame by frame, each frame
    /// written before the next is read. Anything else (an interlaced PNG, a
    /// JPEG, WebP or AVIF to turn upright) is decoded whole first.
    ///
    /// With `colourSpace` `.srgb`, an image with a profile has its rows
    /// converted to sRGB on their way to `sink`.
    public func decode(_ bytes: [UInt8], channels: Int, into sink: inout some RowSink) throws {
        let colour = profile(of: bytes, format: try Self.format(of: bytes))
        if colourSpace == .srgb, let profile = colour.rgb,
            let transform = SRGBConversion.transform(profile, channels: channels, notes: notes)
        {
            var converting = SRGBRowSink(sink, transform: transform)
            defer { sink = converting.base }
            return try stream(bytes, channels: channels, into: &converting, cmykProfile: nil)
        }
        try stream(bytes, channels: channels, into: &sink, cmykProfile: colour.cmyk)
    }

    /// Streams the pixels as stored (but for a CMYK JPEG with `cmykProfile`).
    private func stream(
        _ bytes: [UInt8], channels: Int, into sink: inout some RowSink, cmykProfile: ColourProfile?
    ) throws {
        switch ImageFormat.sniff(bytes) {
        case .supported(.jpeg):
            let decoder = JPEGDecoder(limits: limits, cmykProfile: cmykProfile, notes: notes)
            guard appliesOrientation, try decoder.header(bytes).orientation != 1 else {
                return try decoder.stream(bytes, channels: channels, to: &sink)
            }
        case .supported(.png):
            if let animation = try APNGStructure.read(bytes) {
                // Frame by frame, like a GIF: one canvas, whatever the frame count.
                var frames = FramesAsRows(sink, channels: channels)
                defer { sink = frames.rows }
                return try APNGDecoder(limits: limits).decode(animation, into: &frames)
            }
            if try PNGDecoder(limits: limits).stream(bytes, channels: channels, to: &sink) { return }
        case .supported(.avif):
            let decoder = AVIFDecoder(limits: limits)
            if appliesOrientation, try decoder.inspect(bytes).orientation != 1 { break }
            var frames = FramesAsRows(sink, channels: channels)
            defer { sink = frames.rows }
            return try decoder.decode(bytes, into: &frames)
        case .supported(.gif):
            // Frame by frame: one canvas, whatever the frame count.
            var frames = FramesAsRows(sink, channels: channels)
            defer { sink = frames.rows }
            return try GIFDecoder(limits: limits).decode(bytes, into: &frames)
        case .supported(.jxl):
            // libjxl turns the image upright itself: always streamed.
            let decoder = JXLDecoder(limits: limits)
            if try decoder.stream(bytes, channels: channels, to: &sink) { return }
            var frames = FramesAsRows(sink, channels: channels)
            defer { sink = frames.rows }
            return try decoder.decode(bytes, into: &frames)
        case .supported(.webp):
            let decoder = WebPDecoder(limits: limits)
            if appliesOrientation, try decoder.inspect(bytes).orientation != 1 { break }
            var frames = FramesAsRows(sink, channels: channels)
            defer { sink = frames.rows }
            if try decoder.decodeAnimation(bytes, into: &frames) { return }
            if try decoder.stream(bytes, channels: channels, to: &frames.rows) { return }
        default:
            break
        }
        // Decoded whole: as stored, or for a CMYK JPEG to turn upright, through its profile.
        let whole = ImageDecoder(
            limits: limits, appliesOrientation: appliesOrientation,
            colourSpace: cmykProfile != nil ? .srgb : .original, notes: .silent)
        try Self.write(try whole.decode(bytes, frame: nil, scale: nil), channels: channels, into: &sink)
    }
}
