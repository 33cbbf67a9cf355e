extension ImageManager {
    /// Decodes every frame of `response` at full size into `sink`, as RGB
    /// (`channels` 3) or RGBA (4), oriented and in the colour space
    /// `request` asks for (its rendition: one decision with its name, as in
    /// `load`), whatever the manager's decoder would choose: row by row as
    /// decoded where the format allows (`ImageDecoding.decode(_:channels:into:)`),
    /// so no full frame is held; from its decoded image when the response
    /// holds the very pixels asked for. Blocks while the C library works.
    /// Throws `.image` errors and whatever `sink` throws.
    func decodePixels(
        of response: ImageResponse, for request: ImageRequest, channels: Int, into sink: inout some RowSink
    ) throws {
        let decoder = renderer.decoder
        // A held image is the decoder's full decode (the memory cache keeps
        // no other) only when the request asks for nothing else.
        if let image = response.image, !Renderer.isPartial(request, decoder: decoder) {
            return try ImageDecoder.write(image, channels: channels, into: &sink)
        }
        try renderer.decoder(for: request).decode(response.bytes, channels: channels, into: &sink)
    }
}

extension ImageManager {
    /// Writes every frame of `response` at full size as Netpbm images in
    /// `format` (`.pam` or `.ppm`, see `OutputFormat.Pixels.isStreamable`),
    /// oriented and converted as `request` (the one `response` answers) asks,
    /// handing each piece to `output` as it is decoded (`fetch --decode
    /// ppm|pam`): no full frame is held. Throws as `decodePixels` does.
    public func writePixels(
        of response: ImageResponse, for request: ImageRequest, as format: OutputFormat.Pixels,
        to output: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var writer = NetpbmRowWriter(format: format, output: output)
        try decodePixels(of: response, for: request, channels: writer.channels, into: &writer)
    }
}
