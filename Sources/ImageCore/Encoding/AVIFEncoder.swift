internal import CAVIF
internal import CImageCoreShims

/// AVIF through libavif's encoder (libaom, the first AV1 encoder libavif
/// finds), frame by frame: a still image, or an image sequence with a
/// duration per frame. Speed 10, the fastest libavif offers: thumbnails are
/// made on demand, and speed 6 (avifenc's default) takes several times as
/// long for a few percent fewer bytes. 4:4:4 chroma (avifenc's default for
/// RGB input: small thumbnails have sharp colour edges), 8-bit. libavif 0.11
/// cannot write a loop count: sequences play forever. All libavif encoding
/// calls live here.
final class AVIFEncoder {
    /// libavif's speed setting (0 slowest ... 10 fastest).
    static let speed = 10
    /// Used when no quality is given: close to avifenc's default quantizers.
    static let defaultQuality = 60

    private let encoder: UnsafeMutablePointer<avifEncoder>
    private let image: UnsafeMutablePointer<avifImage>
    private let width: Int
    private let height: Int
    private let isSequence: Bool

    /// Starts an AVIF. The corresponding C functions are `avifEncoderCreate` and `avifImageCreate`.
    init(width: Int, height: Int, frameCount: Int, quality: Int?) throws {
        try CodecLibrary.require(to: "encode AVIF", loadingWith: imgcache_avif_load)
        guard let encoder = imgcache_avif_encoder_create() else {
            throw ImageCoreError(.failure, "cannot create an AVIF encoder")
        }
        guard let image = imgcache_avif_image_create(UInt32(width), UInt32(height), 8, AVIF_PIXEL_FORMAT_YUV444) else {
            imgcache_avif_encoder_destroy(encoder)
            throw ImageCoreError(.failure, "cannot create an AVIF image")
        }
        self.encoder = encoder
        self.image = image
        self.width = width
        self.height = height
        isSequence = frameCount > 1
        // Quality 1-100 onto AV1 quantizers 63-0.
        let quantizer = Int32((100 - min(100, max(1, quality ?? Self.defaultQuality))) * 63 / 100)
        encoder.pointee.speed = Int32(Self.speed)
        encoder.pointee.maxThreads = 2
        encoder.pointee.timescale = 1000
        encoder.pointee.minQuantizer = quantizer
        encoder.pointee.maxQuantizer = quantizer
        encoder.pointee.minQuantizerAlpha = quantizer
        encoder.pointee.maxQuantizerAlpha = quantizer
    }

    deinit {
        imgcache_avif_image_destroy(image)
        imgcache_avif_encoder_destroy(encoder)
    }

    /// Declares the pixels' colour space, before the first frame: an ICC
    /// profile as a `colr prof` box, byte for byte, or the `nclx` code points
    /// of BT.709, BT.2020 or Display P3 primaries with their transfer. The
    /// corresponding C function is `avifImageSetProfileICC`.
    func describe(_ colour: ColourProfile) throws {
        if let icc = colour.icc {
            let status = icc.withUnsafeBufferPointer {
                imgcache_avif_image_set_profile_icc(image, $0.baseAddress, $0.count)
            }
            guard status == 0 else {
                throw ImageCoreError(.failure, "AVIF encoding failed: cannot keep the ICC profile")
            }
        } else if let primaries = colour.primaries, let codes = Self.codePoints(primaries) {
            image.pointee.colorPrimaries = avifColorPrimaries(codes.primaries)
            image.pointee.transferCharacteristics = avifTransferCharacteristics(codes.transfer)
        }
    }

    /// ITU-T H.273 code points for `primaries`, if it has them.
    static func codePoints(_ primaries: ColourProfile.Primaries) -> (primaries: UInt16, transfer: UInt16)? {
        let code: UInt16
        switch primaries.xy {
        case ColourProfile.Primaries.bt709: code = 1
        case ColourProfile.Primaries.bt2020: code = 9
        case ColourProfile.Primaries.displayP3: code = 12
        default: return nil
        }
        switch primaries.transfer {
        case .sRGB: return (code, 13)
        case .bt709: return (code, 1)
        case .gamma(let gamma) where gamma == 2.2: return (code, 4)
        case .pq: return (code, 16)
        case .hlg: return (code, 18)
        case .gamma: return nil
        }
    }

    /// Adds one frame of RGBA pixels. The corresponding C functions are
    /// `avifImageRGBToYUV` and `avifEncoderAddImage`.
    func add(_ pixels: [UInt8], durationMilliseconds: Int) throws {
        var pixels = pixels
        let converted = pixels.withUnsafeMutableBufferPointer { source in
            var rgb = avifRGBImage()
            imgcache_avif_rgb_image_set_defaults(&rgb, image)
            rgb.format = AVIF_RGB_FORMAT_RGBA
            rgb.depth = 8
            rgb.pixels = source.baseAddress
            rgb.rowBytes = UInt32(width * 4)
            return imgcache_avif_image_rgb_to_yuv(image, &rgb)
        }
        guard converted == AVIF_RESULT_OK else { throw failure("cannot convert a frame to YUV", converted) }
        let flags =
            isSequence
            ? avifAddImageFlags(AVIF_ADD_IMAGE_FLAG_NONE.rawValue)
            : avifAddImageFlags(AVIF_ADD_IMAGE_FLAG_SINGLE.rawValue)
        let added = imgcache_avif_encoder_add_image(encoder, image, UInt64(max(1, durationMilliseconds)), flags)
        guard added == AVIF_RESULT_OK else { throw failure("cannot encode a frame", added) }
    }

    /// The finished file. The corresponding C functions are `avifEncoderFinish` and `avifRWDataFree`.
    func finish() throws -> [UInt8] {
        var output = avifRWData()
        defer { imgcache_avif_rw_data_free(&output) }
        let finished = imgcache_avif_encoder_finish(encoder, &output)
        guard finished == AVIF_RESULT_OK, let data = output.data else { throw failure("cannot finish", finished) }
        return Array(UnsafeBufferPointer(start: data, count: output.size))
    }

    /// Every frame of `image` and its durations.
    static func encode(_ image: DecodedImage, quality: Int?) throws -> [UInt8] {
        let encoder = try AVIFEncoder(
            width: image.width, height: image.height, frameCount: image.frames.count, quality: quality)
        if let colour = image.colour { try encoder.describe(colour) }
        for frame in image.frames { try encoder.add(frame.pixels, durationMilliseconds: frame.durationMilliseconds) }
        return try encoder.finish()
    }

    private func failure(_ what: String, _ result: avifResult) -> ImageCoreError {
        ImageCoreError(
            .failure, "AVIF encoding failed: \(what) (\(String(cString: imgcache_avif_result_to_string(result))))")
    }
}
