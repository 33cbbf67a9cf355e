internal import CWebP

/// Animated WebP through libwebpmux's `WebPAnimEncoder`, frame by frame:
/// lossy at a quality, or lossless. It stores each frame as the smallest
/// rectangle that changed, so the output is often far smaller than the
/// frames it was given. One thing it does on its own: a frame identical to
/// the one before is merged into it (the durations add up), so an animation
/// that repeats a frame may come out with fewer frames playing as long.
final class AnimatedWebPEncoder {
    private let encoder: OpaquePointer
    private var config = WebPConfig()
    private let width: Int
    private let height: Int
    private var timestamp = 0

    /// Starts an animation. The corresponding C functions are
    /// `WebPAnimEncoderOptionsInit`, `WebPAnimEncoderNew` and `WebPConfigInit`.
    init(width: Int, height: Int, loopCount: Int, quality: Int?) throws {
        var options = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&options) != 0, WebPConfigInit(&config) != 0 else {
            throw ImageCoreError(.failure, "libwebp version mismatch")
        }
        options.anim_params.loop_count = Int32(clamping: loopCount)
        if let quality {
            config.quality = Float(quality)
        } else {
            config.lossless = 1
            config.exact = 1  // keep the colour under transparent pixels, as the still encoder does
        }
        guard let encoder = WebPAnimEncoderNew(Int32(width), Int32(height), &options) else {
            throw ImageCoreError(.failure, "cannot create a WebP animation encoder")
        }
        self.encoder = encoder
        self.width = width
        self.height = height
    }

    deinit { WebPAnimEncoderDelete(encoder) }

    /// Adds one frame of `width * height * 4` RGBA bytes, shown for
    /// `durationMilliseconds`. The corresponding C functions are
    /// `WebPPictureImportRGBA` and `WebPAnimEncoderAdd`.
    func add(_ pixels: [UInt8], durationMilliseconds: Int) throws {
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw ImageCoreError(.failure, "libwebp version mismatch") }
        defer { WebPPictureFree(&picture) }
        picture.use_argb = 1
        picture.width = Int32(width)
        picture.height = Int32(height)
        let imported = pixels.withUnsafeBufferPointer {
            WebPPictureImportRGBA(&picture, $0.baseAddress, Int32(width * 4))
        }
        guard imported != 0, WebPAnimEncoderAdd(encoder, &picture, Int32(clamping: timestamp), &config) != 0 else {
            throw failure()
        }
        timestamp += durationMilliseconds
    }

    /// The finished file. The corresponding C function is `WebPAnimEncoderAssemble`.
    func finish() throws -> [UInt8] {
        guard WebPAnimEncoderAdd(encoder, nil, Int32(clamping: timestamp), nil) != 0 else { throw failure() }
        var data = WebPData()
        WebPDataInit(&data)
        defer { WebPDataClear(&data) }
        guard WebPAnimEncoderAssemble(encoder, &data) != 0, let bytes = data.bytes else { throw failure() }
        return Array(UnsafeBufferPointer(start: bytes, count: data.size))
    }

    /// Every frame of `image`, its durations and loop count.
    static func encode(_ image: DecodedImage, quality: Int?) throws -> [UInt8] {
        let encoder = try AnimatedWebPEncoder(
            width: image.width, height: image.height, loopCount: image.loopCount ?? 0,
            quality: quality)
        for frame in image.frames { try encoder.add(frame.pixels, durationMilliseconds: frame.durationMilliseconds) }
        return try encoder.finish()
    }

    private func failure() -> ImageCoreError {
        let reason = WebPAnimEncoderGetError(encoder).map { String(cString: $0) } ?? ""
        return ImageCoreError(.failure, "WebP animation encoding failed\(reason.isEmpty ? "" : ": \(reason)")")
    }
}
