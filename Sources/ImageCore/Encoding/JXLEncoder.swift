internal import CImageCoreShims
internal import CJXL

#if canImport(Glibc)
    import Glibc
#endif

/// JPEG XL through libjxl's encoder, frame by frame: a still image, or an
/// animation with a duration per frame (ticks of a millisecond) and its loop
/// count. Effort 3 of libjxl's 1...9 (cjxl's default is 7): thumbnails are
/// made on demand, and effort 7 takes several times as long. Quality maps to
/// a Butteraugli distance as cjxl's `-q` does (90, cjxl's default, is
/// distance 1); quality 100 is lossless. 8-bit; alpha only when a pixel is
/// not opaque. The image's ICC profile is stored in the codestream byte for
/// byte; a colour space given by numbers goes in as an ICC profile made by
/// Little CMS. All libjxl encoding calls live here.
final class JXLEncoder {
    /// libjxl's effort (1 fastest ... 9 slowest).
    static let effort = 3
    /// Used when no quality is given: cjxl's default.
    static let defaultQuality = 90

    private let encoder: OpaquePointer
    /// libjxl's thread pool for this encoder, or nil (single-threaded): `imgcache_jxl_runner_create`.
    private let runner: UnsafeMutableRawPointer?
    private let settings: OpaquePointer
    private let width: Int
    private let height: Int
    private let hasAlpha: Bool

    /// Starts a JPEG XL of `width` × `height` in `colour` (nil: sRGB). The
    /// corresponding C functions are `JxlEncoderCreate`,
    /// `JxlEncoderSetBasicInfo`, `JxlEncoderSetICCProfile` (or
    /// `JxlEncoderSetColorEncoding`) and `JxlEncoderFrameSettingsCreate`.
    init(
        width: Int, height: Int, hasAlpha: Bool, animation: (loopCount: Int, frames: Int)?, quality: Int?,
        colour: ColourProfile?
    ) throws {
        try CodecLibrary.require(to: "encode JPEG XL", loadingWith: imgcache_jxl_load)
        guard let encoder = imgcache_jxl_encoder_create() else {
            throw ImageCoreError(.failure, "cannot create a JPEG XL encoder")
        }
        self.encoder = encoder
        self.width = width
        self.height = height
        self.hasAlpha = hasAlpha
        let runner = imgcache_jxl_runner_create()
        self.runner = runner
        guard runner.map({ imgcache_jxl_encoder_set_runner(encoder, $0) == JXL_ENC_SUCCESS }) ?? true,
            let settings = imgcache_jxl_encoder_frame_settings_create(encoder)
        else {
            imgcache_jxl_encoder_destroy(encoder)
            imgcache_jxl_runner_destroy(runner)
            throw ImageCoreError(.failure, "cannot set up a JPEG XL encoder")
        }
        self.settings = settings
        let lossless = (quality ?? Self.defaultQuality) >= 100
        var info = JxlBasicInfo()
        imgcache_jxl_encoder_init_basic_info(&info)
        info.xsize = UInt32(width)
        info.ysize = UInt32(height)
        info.bits_per_sample = 8
        info.num_color_channels = 3
        info.alpha_bits = hasAlpha ? 8 : 0
        info.num_extra_channels = hasAlpha ? 1 : 0
        // Lossless keeps the pixels' own space; lossy goes through XYB.
        info.uses_original_profile = lossless ? JXL_TRUE : JXL_FALSE
        if let animation {
            info.have_animation = JXL_TRUE
            info.animation.tps_numerator = 1000
            info.animation.tps_denominator = 1
            info.animation.num_loops = UInt32(clamping: animation.loopCount)
        }
        try check(imgcache_jxl_encoder_set_basic_info(encoder, &info), "cannot set the image header")
        try describe(colour)
        if lossless {
            try check(imgcache_jxl_encoder_set_frame_lossless(settings, JXL_TRUE), "cannot set lossless")
        } else {
            let distance = Self.distance(quality: quality ?? Self.defaultQuality)
            try check(imgcache_jxl_encoder_set_frame_distance(settings, distance), "cannot set the distance")
        }
        try check(
            imgcache_jxl_encoder_frame_settings_set_option(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(Self.effort)),
            "cannot set the effort")
    }

    deinit {
        imgcache_jxl_encoder_destroy(encoder)
        // After the encoder: it may use the pool until it is destroyed.
        imgcache_jxl_runner_destroy(runner)
    }

    /// cjxl 0.7's `-q` to distance: 100 lossless, 30...99 linear from 0.1 to
    /// 6.4, below 30 steeper.
    static func distance(quality: Int) -> Float {
        let quality = Float(min(100, max(1, quality)))
        if quality >= 30 { return 0.1 + (100 - quality) * 0.09 }
        return 6.4 + Float(pow(2.5, Double((30 - quality) / 5))) / 6.25
    }

    /// The ICC profile, byte for byte, or one Little CMS makes from
    /// primaries; sRGB when there is neither.
    private func describe(_ colour: ColourProfile?) throws {
        let icc = colour?.icc ?? colour?.primaries.flatMap { try? ColourTransform.iccProfile(for: $0) }
        if let icc {
            let status = icc.withUnsafeBufferPointer {
                imgcache_jxl_encoder_set_icc_profile(encoder, $0.baseAddress, $0.count)
            }
            return try check(status, "cannot keep the ICC profile")
        }
        var srgb = JxlColorEncoding()
        imgcache_jxl_color_encoding_set_to_srgb(&srgb, JXL_FALSE)
        try check(imgcache_jxl_encoder_set_color_encoding(encoder, &srgb), "cannot set sRGB")
    }

    /// Adds one frame of RGBA pixels shown for `durationMilliseconds` (in an
    /// animation). The corresponding C functions are `JxlEncoderSetFrameHeader`
    /// and `JxlEncoderAddImageFrame`.
    func add(_ pixels: [UInt8], durationMilliseconds: Int?) throws {
        if let durationMilliseconds {
            var header = JxlFrameHeader()
            imgcache_jxl_encoder_init_frame_header(&header)
            header.duration = UInt32(clamping: durationMilliseconds)
            try check(imgcache_jxl_encoder_set_frame_header(settings, &header), "cannot set a frame's duration")
        }
        let channels = hasAlpha ? 4 : 3
        var format = JxlPixelFormat(
            num_channels: UInt32(channels), data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        let frame = hasAlpha ? pixels : Self.droppingAlpha(pixels)
        let status = frame.withUnsafeBytes {
            imgcache_jxl_encoder_add_image_frame(settings, &format, $0.baseAddress, $0.count)
        }
        try check(status, "cannot encode a frame")
    }

    /// The finished file. The corresponding C functions are
    /// `JxlEncoderCloseInput` and `JxlEncoderProcessOutput`.
    func finish() throws -> [UInt8] {
        imgcache_jxl_encoder_close_input(encoder)
        var output = [UInt8](repeating: 0, count: max(4096, width * height / 4))
        var written = 0
        while true {
            let (status, used) = output.withUnsafeMutableBufferPointer { buffer in
                var next = buffer.baseAddress.map { $0 + written }
                var available = buffer.count - written
                let status = imgcache_jxl_encoder_process_output(encoder, &next, &available)
                return (status, buffer.count - written - available)
            }
            written += used
            switch status {
            case JXL_ENC_SUCCESS: return Array(output.prefix(written))
            case JXL_ENC_NEED_MORE_OUTPUT: output += [UInt8](repeating: 0, count: output.count)
            default: try check(status, "cannot finish")
            }
        }
    }

    /// Every frame of `image`, its durations and loop count when it is an
    /// animation, and its colour profile.
    static func encode(_ image: DecodedImage, quality: Int?) throws -> [UInt8] {
        let animated = image.frames.count > 1
        let hasAlpha = image.frames.contains { frame in
            stride(from: 3, to: frame.pixels.count, by: 4).contains { frame.pixels[$0] != 255 }
        }
        let encoder = try JXLEncoder(
            width: image.width, height: image.height, hasAlpha: hasAlpha,
            animation: animated ? (image.loopCount ?? 0, image.frames.count) : nil, quality: quality,
            colour: image.colour)
        for frame in image.frames {
            try encoder.add(frame.pixels, durationMilliseconds: animated ? frame.durationMilliseconds : nil)
        }
        return try encoder.finish()
    }

    /// RGB from RGBA.
    private static func droppingAlpha(_ pixels: [UInt8]) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: pixels.count / 4 * 3)
        for pixel in 0..<(pixels.count / 4) {
            rgb[pixel * 3] = pixels[pixel * 4]
            rgb[pixel * 3 + 1] = pixels[pixel * 4 + 1]
            rgb[pixel * 3 + 2] = pixels[pixel * 4 + 2]
        }
        return rgb
    }

    private func check(_ status: JxlEncoderStatus, _ what: String) throws {
        guard status == JXL_ENC_SUCCESS else {
            let code = imgcache_jxl_encoder_get_error(encoder)
            throw ImageCoreError(.failure, "JPEG XL encoding failed: \(what) (libjxl error \(code.rawValue))")
        }
    }
}
