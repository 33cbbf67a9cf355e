internal import CWebP

/// WebP through libwebp: stills with `WebPDecodeRGBAInto` (pixels equal
/// `dwebp -pam`'s), animations with `WebPAnimDecoder`, which composites each
/// frame onto the canvas. The container is parsed by WebPDemux first, so
/// dimensions, frame count and a truncated or lying RIFF size are caught
/// before any pixel buffer exists.
struct WebPDecoder {
    let limits: DecodingLimits

    func inspect(_ bytes: [UInt8]) throws -> ImageInfo {
        try bytes.withUnsafeBufferPointer { buffer in
            let container = try WebPContainer(buffer)
            try limits.check(width: container.width, height: container.height, frames: container.frameCount)
            return ImageInfo(
                format: .webp, width: container.width, height: container.height,
                frameCount: container.frameCount, loopCount: container.isAnimated ? container.loopCount : nil,
                orientation: container.orientation, frameDurations: container.frameDurations)
        }
    }

    /// Decodes at full size; a still image with a `target` size comes out
    /// at that size through libwebp's own scaler (animations are scaled by
    /// the caller, frame by frame).
    func decode(_ bytes: [UInt8], target: (width: Int, height: Int)? = nil) throws -> DecodedImage {
        let info = try inspect(bytes)
        return try bytes.withUnsafeBufferPointer { buffer in
            let animated = try info.frameCount > 1 || WebPContainer(buffer).isAnimated
            if !animated, let target, target != (info.width, info.height) {
                let pixels = try decodeStillScaled(buffer, to: target)
                return DecodedImage(
                    format: .webp, width: target.width, height: target.height, frames: [.init(pixels: pixels)])
            }
            guard animated else {
                let frames = [DecodedImage.Frame(pixels: try decodeStill(buffer, info: info))]
                return DecodedImage(format: .webp, width: info.width, height: info.height, frames: frames)
            }
            var collector = FrameCollector()
            try decodeAnimation(buffer, info: info, into: &collector)
            return collector.image(.webp)
        }
    }

    /// Hands each composited frame of an animation to `sink` as soon as
    /// libwebp has it (WebPAnimDecoder keeps one canvas); returns false,
    /// having called nothing, for a still image.
    func decodeAnimation(_ bytes: [UInt8], into sink: inout some FrameSink) throws -> Bool {
        let info = try inspect(bytes)
        return try bytes.withUnsafeBufferPointer { buffer in
            guard try info.frameCount > 1 || WebPContainer(buffer).isAnimated else { return false }
            try decodeAnimation(buffer, info: info, into: &sink)
            return true
        }
    }

    /// The corresponding C functions are `WebPInitDecoderConfig` and `WebPDecode`.
    private func decodeStillScaled(
        _ buffer: UnsafeBufferPointer<UInt8>, to size: (width: Int, height: Int)
    ) throws -> [UInt8] {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw ImageCoreError(.image, "libwebp version mismatch") }
        config.options.use_scaling = 1
        config.options.scaled_width = Int32(size.width)
        config.options.scaled_height = Int32(size.height)
        var pixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
        let status = pixels.withUnsafeMutableBufferPointer { target in
            config.output.colorspace = MODE_RGBA
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = target.baseAddress
            config.output.u.RGBA.stride = Int32(size.width * 4)
            config.output.u.RGBA.size = target.count
            return WebPDecode(buffer.baseAddress, buffer.count, &config)
        }
        guard status == VP8_STATUS_OK else {
            throw ImageCoreError(.image, "corrupt WebP: the bitstream does not decode")
        }
        return pixels
    }

    /// The corresponding C function is `WebPDecodeRGBAInto`.
    private func decodeStill(_ buffer: UnsafeBufferPointer<UInt8>, info: ImageInfo) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: info.width * info.height * 4)
        let decoded = pixels.withUnsafeMutableBufferPointer { target in
            WebPDecodeRGBAInto(
                buffer.baseAddress, buffer.count, target.baseAddress, target.count, Int32(info.width * 4))
        }
        guard decoded != nil else { throw ImageCoreError(.image, "corrupt WebP: the bitstream does not decode") }
        return pixels
    }

    /// The corresponding C functions are `WebPAnimDecoderNew`,
    /// `WebPAnimDecoderGetNext` and `WebPAnimDecoderDelete`.
    private func decodeAnimation(
        _ buffer: UnsafeBufferPointer<UInt8>, info: ImageInfo,
        into sink: inout some FrameSink
    ) throws {
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            throw ImageCoreError(.image, "libwebp version mismatch")
        }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        var data = WebPData(bytes: buffer.baseAddress, size: buffer.count)
        guard let decoder = WebPAnimDecoderNew(&data, &options) else {
            throw ImageCoreError(.image, "corrupt WebP animation")
        }
        defer { WebPAnimDecoderDelete(decoder) }
        var frames = 0
        var previousTimestamp: Int32 = 0
        let byteCount = info.width * info.height * 4
        try sink.begin(width: info.width, height: info.height)
        while WebPAnimDecoderHasMoreFrames(decoder) != 0 {
            var canvas: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
                throw ImageCoreError(.image, "corrupt WebP animation: frame \(frames) does not decode")
            }
            try sink.write(
                frame: UnsafeRawBufferPointer(start: canvas, count: byteCount),
                durationMilliseconds: Int(timestamp - previousTimestamp))
            frames += 1
            previousTimestamp = timestamp
        }
        guard frames > 0 else { throw ImageCoreError(.image, "corrupt WebP animation: no frames") }
        try sink.finish(loopCount: info.loopCount)
    }
}

/// The facts WebPDemux reads from a WebP container.
struct WebPContainer {
    var width: Int
    var height: Int
    var frameCount: Int
    var loopCount: Int
    var isAnimated: Bool
    /// Each frame's duration (ms) from its ANMF chunk, for an animation of
    /// more than one frame; else empty.
    var frameDurations: [Int] = []
    /// The EXIF orientation, from an EXIF chunk if there is one.
    var orientation = 1

    /// Parses the container; throws for truncated or malformed files. The
    /// corresponding C functions are `WebPDemux`, `WebPDemuxGetI`, `WebPDemuxGetFrame` and `WebPDemuxDelete`.
    init(_ buffer: UnsafeBufferPointer<UInt8>) throws {
        var data = WebPData(bytes: buffer.baseAddress, size: buffer.count)
        guard let demuxer = WebPDemux(&data) else {
            throw ImageCoreError(.image, "corrupt WebP: truncated or malformed container")
        }
        defer { WebPDemuxDelete(demuxer) }
        width = Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH))
        height = Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT))
        frameCount = Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT))
        loopCount = Int(WebPDemuxGetI(demuxer, WEBP_FF_LOOP_COUNT))
        isAnimated = WebPDemuxGetI(demuxer, WEBP_FF_FORMAT_FLAGS) & UInt32(ANIMATION_FLAG.rawValue) != 0
        if isAnimated, frameCount > 1 {
            // Frame headers only: the demuxer has already indexed every ANMF chunk.
            var iterator = WebPIterator()
            for number in 1...frameCount where WebPDemuxGetFrame(demuxer, Int32(number), &iterator) != 0 {
                frameDurations.append(Int(iterator.duration))
            }
            WebPDemuxReleaseIterator(&iterator)
            if frameDurations.count != frameCount { frameDurations = [] }
        }
        if WebPDemuxGetI(demuxer, WEBP_FF_FORMAT_FLAGS) & UInt32(EXIF_FLAG.rawValue) != 0 {
            var iterator = WebPChunkIterator()
            if WebPDemuxGetChunk(demuxer, "EXIF", 1, &iterator) != 0, let bytes = iterator.chunk.bytes {
                orientation = EXIFOrientation.read(
                    exif: Array(UnsafeBufferPointer(start: bytes, count: iterator.chunk.size)))
            }
            WebPDemuxReleaseChunkIterator(&iterator)
        }
    }
}
