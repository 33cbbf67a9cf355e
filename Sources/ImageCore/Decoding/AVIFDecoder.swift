internal import CAVIF
internal import CImageCoreShims

/// AVIF through libavif (which decodes AV1 with dav1d): stills and image
/// sequences (`avis`), alpha, 8/10/12-bit samples written as 8-bit the way
/// `avifdec --depth 8` converts them (libavif's own YUV-to-RGB with its
/// defaults), `irot`/`imir`, and EXIF orientation when neither is present.
/// Limits are checked from the container (`ispe`, sample count) after
/// `avifDecoderParse`, before any pixel buffer exists; libavif gets the same
/// limits, so dav1d refuses a frame bigger than its header says.
struct AVIFDecoder {
    let limits: DecodingLimits

    /// Header facts, after the box walk that catches truncation: what a
    /// download must pass before it is stored.
    func inspect(_ bytes: [UInt8]) throws -> ImageInfo {
        try BoxStructure.verify(bytes, format: "AVIF")
        return try bytes.withUnsafeBufferPointer { buffer in try AVIFDecoderHandle(buffer, limits: limits).info }
    }

    /// Every frame, as stored (the caller turns it upright per `inspect`'s
    /// orientation), kept.
    func decode(_ bytes: [UInt8]) throws -> DecodedImage {
        var frames: [DecodedImage.Frame] = []
        let info = try decode(bytes) { pixels, duration in
            frames.append(DecodedImage.Frame(pixels: Array(pixels), durationMilliseconds: duration))
        }
        return DecodedImage(
            format: .avif, width: info.width, height: info.height, frames: frames, loopCount: info.loopCount)
    }

    /// Hands each frame to `sink` as it is decoded, as stored: one RGBA
    /// buffer in memory, whatever the frame count.
    func decode(_ bytes: [UInt8], into sink: inout some FrameSink) throws {
        let info = try decode(bytes, header: { try sink.begin(width: $0.width, height: $0.height) }) {
            pixels, duration in
            try sink.write(frame: UnsafeRawBufferPointer(pixels), durationMilliseconds: duration)
        }
        try sink.finish(loopCount: info.loopCount)
    }

    /// Hands each frame to `eachFrame` as it is decoded (RGBA, valid only
    /// during the call, and its duration; 0 for a still): one RGBA buffer,
    /// whatever the frame count. The corresponding C functions are
    /// `avifDecoderNextImage` and `avifImageYUVToRGB`.
    /// `header` is called once, with the container's facts, before the first frame.
    func decode(
        _ bytes: [UInt8], header: (ImageInfo) throws -> Void = { _ in },
        eachFrame: (UnsafeBufferPointer<UInt8>, Int) throws -> Void
    ) throws -> ImageInfo {
        try bytes.withUnsafeBufferPointer { buffer in
            let handle = try AVIFDecoderHandle(buffer, limits: limits)
            let info = handle.info
            try header(info)
            let decoder = handle.decoder
            var pixels = [UInt8](repeating: 0, count: info.width * info.height * 4)
            for index in 0..<info.frameCount {
                let result = imgcache_avif_decoder_next_image(decoder)
                guard result == AVIF_RESULT_OK, let image = decoder.pointee.image else {
                    throw AVIFDecoderHandle.failure(
                        "frame \(index) does not decode", result,
                        detail: AVIFDecoderHandle.diagnostic(decoder))
                }
                guard Int(image.pointee.width) == info.width, Int(image.pointee.height) == info.height else {
                    throw ImageCoreError(
                        .image,
                        "corrupt AVIF: frame \(index) is \(image.pointee.width)×\(image.pointee.height), "
                            + "not \(info.width)×\(info.height) as the header says")
                }
                // Without alpha, converted to RGB as avifdec does (libavif's
                // RGB and RGBA paths round differently), then widened in place.
                let opaque = image.pointee.alphaPlane == nil
                let converted = pixels.withUnsafeMutableBufferPointer { target in
                    var rgb = avifRGBImage()
                    imgcache_avif_rgb_image_set_defaults(&rgb, image)
                    rgb.format = opaque ? AVIF_RGB_FORMAT_RGB : AVIF_RGB_FORMAT_RGBA
                    rgb.depth = 8
                    rgb.pixels = target.baseAddress
                    rgb.rowBytes = UInt32(info.width * (opaque ? 3 : 4))
                    let result = imgcache_avif_image_yuv_to_rgb(image, &rgb)
                    if opaque { Self.widenRGBToRGBA(target, pixelCount: info.width * info.height) }
                    return result
                }
                guard converted == AVIF_RESULT_OK else {
                    throw AVIFDecoderHandle.failure("frame \(index) does not convert to RGB", converted)
                }
                let duration = info.frameCount > 1 ? Int((decoder.pointee.imageTiming.duration * 1000).rounded()) : 0
                try pixels.withUnsafeBufferPointer { try eachFrame($0, duration) }
            }
            return info
        }
    }
}

extension AVIFDecoder {
    /// Spreads `pixelCount` RGB pixels at the start of `buffer` to RGBA with
    /// opaque alpha, back to front, so nothing is overwritten before it is read.
    static func widenRGBToRGBA(_ buffer: UnsafeMutableBufferPointer<UInt8>, pixelCount: Int) {
        for pixel in stride(from: pixelCount - 1, through: 0, by: -1) {
            buffer[pixel * 4 + 3] = 255
            buffer[pixel * 4 + 2] = buffer[pixel * 3 + 2]
            buffer[pixel * 4 + 1] = buffer[pixel * 3 + 1]
            buffer[pixel * 4] = buffer[pixel * 3]
        }
    }
}

/// Owns one `avifDecoder` that has parsed a buffer (`avifDecoderCreate`,
/// `avifDecoderSetIOMemory`, `avifDecoderParse`; freed with
/// `avifDecoderDestroy`). The buffer must outlive the handle.
final class AVIFDecoderHandle {
    let decoder: UnsafeMutablePointer<avifDecoder>
    /// What the container says, checked against the limits.
    private(set) var info: ImageInfo

    init(_ buffer: UnsafeBufferPointer<UInt8>, limits: DecodingLimits) throws {
        try CodecLibrary.require(to: "decode AVIF", loadingWith: imgcache_avif_load)
        guard let decoder = imgcache_avif_decoder_create() else {
            throw ImageCoreError(.failure, "cannot create an AVIF decoder")
        }
        self.decoder = decoder
        info = ImageInfo(format: .avif, width: 0, height: 0)
        // libavif's own guards, so the AV1 decoder too refuses what we would.
        decoder.pointee.imageSizeLimit = UInt32(clamping: min(limits.maxPixels, Int(UInt32.max)))
        decoder.pointee.imageCountLimit = UInt32(clamping: limits.maxFrames)
        decoder.pointee.ignoreXMP = AVIF_TRUE
        let attached = imgcache_avif_decoder_set_io_memory(decoder, buffer.baseAddress, buffer.count)
        guard attached == AVIF_RESULT_OK else { throw Self.failure("cannot read", attached) }
        let parsed = imgcache_avif_decoder_parse(decoder)
        guard parsed == AVIF_RESULT_OK, let image = decoder.pointee.image else {
            throw Self.failure("cannot parse", parsed, detail: Self.diagnostic(decoder))
        }
        let width = Int(image.pointee.width), height = Int(image.pointee.height)
        let frames = Int(decoder.pointee.imageCount)
        try limits.check(width: width, height: height, frames: frames)
        var durations: [Int] = []
        if frames > 1 {
            // From the parsed sample table: no frame is decoded.
            var timing = avifImageTiming()
            for index in 0..<frames {
                let found = imgcache_avif_decoder_nth_image_timing(decoder, UInt32(index), &timing)
                guard found == AVIF_RESULT_OK else { throw Self.failure("frame \(index) has no timing", found) }
                durations.append(Int((timing.duration * 1000).rounded()))
            }
        }
        // libavif 0.11 does not expose a sequence's edit-list repetitions;
        // browsers loop sequences without one forever.
        info = ImageInfo(
            format: .avif, width: width, height: height, frameCount: frames,
            loopCount: frames > 1 ? 0 : nil, orientation: Self.orientation(image.pointee), frameDurations: durations)
    }

    deinit { imgcache_avif_decoder_destroy(decoder) }

    /// The EXIF orientation equal to the image's `irot` then `imir`; the
    /// EXIF payload's own orientation only when neither box is present
    /// (HEIF makes the boxes authoritative).
    static func orientation(_ image: avifImage) -> Int {
        let flags = image.transformFlags
        let rotates = flags & AVIF_TRANSFORM_IROT.rawValue != 0, mirrors = flags & AVIF_TRANSFORM_IMIR.rawValue != 0
        guard rotates || mirrors else {
            guard image.exif.size > 0, let data = image.exif.data else { return 1 }
            return EXIFOrientation.read(exif: Array(UnsafeBufferPointer(start: data, count: image.exif.size)))
        }
        let angle = rotates ? Int(image.irot.angle & 3) : 0  // quarter turns anticlockwise
        guard mirrors else { return [1, 8, 3, 6][angle] }
        // imir mode 1 swaps left and right, mode 0 top and bottom, after irot.
        return image.imir.mode == 1 ? [2, 7, 4, 5][angle] : [4, 5, 2, 7][angle]
    }

    static func failure(_ what: String, _ result: avifResult, detail: String = "") -> ImageCoreError {
        // libavif's own size limits speak first for a huge `ispe`.
        if detail.contains("too large") { return ImageCoreError(.image, "image too large (AVIF): \(detail)") }
        let reason = String(cString: imgcache_avif_result_to_string(result))
        return ImageCoreError(.image, "corrupt AVIF: \(what) (\(detail.isEmpty ? reason : "\(reason): \(detail)"))")
    }

    /// libavif's detailed message for the last error (`avifDiagnostics`).
    static func diagnostic(_ decoder: UnsafeMutablePointer<avifDecoder>) -> String {
        withUnsafeBytes(of: decoder.pointee.diag.error) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
