/// Encodes decoded pixels in `format`. Animations become a stream of
/// images, one per composited frame, for PAM and PPM.
public func encode(_ image: DecodedImage, as format: OutputFormat.Pixels) throws -> [UInt8] {
    switch format {
    case .pam: NetpbmWriter.pam(image)
    case .ppm: NetpbmWriter.ppm(image)
    case .png:
        // Pixels kept as stored (`--colorspace original`) keep their profile.
        try image.colour?.icc.map { icc in
            try ProfileEmbedding.png(
                icc, in: PNGEncoder.encode(image.frames[0].pixels, width: image.width, height: image.height))
        } ?? PNGEncoder.encode(image.frames[0].pixels, width: image.width, height: image.height)
    }
}
