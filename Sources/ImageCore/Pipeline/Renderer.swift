/// Step 4, rendition: what the caller asked to receive besides the bytes —
/// decoded pixels (a frame, a scaled size), or a re-encoding, which is kept
/// on disk as a variant of its original when it is a thumbnail.
struct Renderer: Sendable {
    let disk: DiskCache
    let decoder: any ImageDecoding
    let limits: DecodingLimits
    let events: EventLog

    /// Decodes and encodes `response` as `request` asks.
    func render(_ response: ImageResponse, _ request: ImageRequest) async throws -> RenderedResponse {
        guard let encoding = request.encoding else { return try await decoded(response, request) }
        let format = encoding.resolved(for: response.info.format)
        if let name = request.variantName, let entry = response.entry,
            let bytes = disk.variants.bytes(of: entry, key: response.key, transform: name)
        {
            events.emit("variant from disk (\(name)): \(request.url)")
            var rendition = RenderedResponse(response: response, fromStoredVariant: true)
            rendition.response.encoded = (bytes, format)
            return rendition
        }
        var rendition = try await decoded(response, request)
        guard let image = rendition.response.image else { throw ImageCoreError(.failure, "no pixels to encode") }
        let sourceQuality =
            format == .webp ? DefaultQuality.webp(from: response.info.format, bytes: response.bytes) : nil
        let quality = request.quality ?? sourceQuality
        let limits = self.limits
        // An animation stays one: every frame, under the same limits as the input.
        let bytes = try await runInBackground { try encode(image, as: format, quality: quality, limits: limits) }
        rendition.response.encoded = (bytes, format)
        events.emit("encoded as \(format.rawValue) (\(bytes.count) bytes): \(request.url)")
        if let name = request.variantName, let entry = response.entry, request.storesToDisk {
            do {
                try disk.variants.store(
                    bytes, transform: name, fileExtension: OutputFormat.encoded(format).fileExtension,
                    of: entry, key: response.key)
            } catch {
                events.emit("variant not kept: \(request.url): \(error)")
            }
        }
        return rendition
    }

    /// Decodes pixels, off the cooperative pool, if the request wants them
    /// and the response lacks them (or holds other ones than asked for).
    /// Pixels decoded with settings other than the decoder's own (the
    /// request's rendition) are, like a frame or a thumbnail, not the image
    /// a response from memory holds: decoded anew, and not remembered.
    private func decoded(_ response: ImageResponse, _ request: ImageRequest) async throws -> RenderedResponse {
        let decoder = self.decoder(for: request)
        let partial = Self.isPartial(request, decoder: self.decoder)
        let needsDecoding = (request.decodesPixels || request.encoding != nil) && (response.image == nil || partial)
        guard needsDecoding else { return RenderedResponse(response: response) }
        let bytes = response.bytes
        let (frame, scale) = (request.frame, request.scale)
        let image = try await runInBackground { try decoder.decode(bytes, frame: frame, scale: scale) }
        if scale != nil { events.emit("scaled to \(image.width)×\(image.height): \(request.url)") }
        var rendition = RenderedResponse(response: response, decoded: true, partialPixels: partial)
        rendition.response.image = image
        return rendition
    }

    /// The decoder with the orientation and colour space `request` asks for.
    func decoder(for request: ImageRequest) -> any ImageDecoding {
        decoder.with(
            appliesOrientation: request.appliesOrientation ?? decoder.appliesOrientation,
            colourSpace: request.colourSpace ?? decoder.colourSpace)
    }

    /// Whether `request` wants other pixels than a full decode by `decoder`:
    /// one frame, a smaller size, another orientation or colour space.
    static func isPartial(_ request: ImageRequest, decoder: any ImageDecoding) -> Bool {
        request.frame != nil || request.scale != nil
            || request.appliesOrientation.map { $0 != decoder.appliesOrientation } == true
            || request.colourSpace.map { $0 != decoder.colourSpace } == true
    }
}

/// A response ready for the caller, and how it was made.
struct RenderedResponse {
    var response: ImageResponse
    /// Pixels were decoded for this request.
    var decoded = false
    /// The decoded pixels are not the full image as the decoder makes it
    /// (`Renderer.isPartial`): not for the memory cache.
    var partialPixels = false
    /// The encoding came from a variant kept on disk.
    var fromStoredVariant = false
}
