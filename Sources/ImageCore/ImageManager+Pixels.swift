extension ImageManager {
    /// Decodes every frame of `response` at full size into `sink`, as RGB
    /// (`channels` 3) or RGBA (4): row by row as decoded where the format
    /// allows (`ImageDecoding.decode(_:channels:into:)`), so no full frame is
    /// held; from its decoded image when the response already has one.
    /// Blocks while the C library works. Throws `.image` errors and whatever
    /// `sink` throws.
    func decodePixels(of response: ImageResponse, channels: Int, into sink: inout some RowSink) throws {
        if let image = response.image {
            return try ImageDecoder.write(image, channels: channels, into: &sink)
        }
        try renderer.decoder.decode(response.bytes, channels: channels, into: &sink)
    }
}

extension ImageManager {
    /// Writes every frame of `response` at full size as Netpbm images in
    /// `format` (`.pam` or `.ppm`, see `OutputFormat.Pixels.isStreamable`),
    /// handing each piece to `output` as it is decoded (`fetch --decode
    /// ppm|pam`): no full frame is held. Throws as `decodePixels` does.
    public func writePixels(
        of response: ImageResponse, as format: OutputFormat.Pixels,
        to output: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var writer = NetpbmRowWriter(format: format, output: output)
        try decodePixels(of: response, channels: writer.channels, into: &writer)
    }
}
