internal import CImageCoreShims
internal import CJXL
import Synchronization

/// Owns one `JxlDecoder` reading a whole file held in memory
/// (`JxlDecoderCreate`, `JxlDecoderSetInput`; freed with
/// `JxlDecoderDestroy`). The buffer must outlive the handle. All libjxl
/// decoding calls live here and in `JXLDecoder`.
final class JXLDecoderHandle {
    private let decoder: OpaquePointer
    /// libjxl's thread pool for this decoder, or nil (single-threaded): `imgcache_jxl_runner_create`.
    private let runner: UnsafeMutableRawPointer?
    /// Keeps the pixel receiver alive while libjxl holds a pointer to it.
    private var receiver: JXLPixelReceiver?

    /// A decoder over `buffer` that reports `events` (`JxlDecoderSubscribeEvents`).
    /// The input is never closed (`JxlDecoderCloseInput`): libjxl 0.7 prints
    /// "missing input" on stderr when a closed input ends early, and the
    /// status it returns instead, `JXL_DEC_NEED_MORE_INPUT`, says the same
    /// quietly (`next`).
    init(_ buffer: UnsafeBufferPointer<UInt8>, events: JxlDecoderStatus...) throws {
        try CodecLibrary.require(to: "decode JPEG XL", loadingWith: imgcache_jxl_load)
        guard let decoder = imgcache_jxl_decoder_create() else {
            throw ImageCoreError(.failure, "cannot create a JPEG XL decoder")
        }
        self.decoder = decoder
        // Only a decode that renders pixels has groups to share among threads.
        runner = events.contains(JXL_DEC_FULL_IMAGE) ? imgcache_jxl_runner_create() : nil
        let wanted = events.reduce(0) { $0 | Int32($1.rawValue) }
        guard runner.map({ imgcache_jxl_decoder_set_runner(decoder, $0) == JXL_DEC_SUCCESS }) ?? true,
            imgcache_jxl_decoder_subscribe_events(decoder, wanted) == JXL_DEC_SUCCESS,
            // DecodedImage's pixels are unpremultiplied, as djxl writes a PNG.
            imgcache_jxl_decoder_set_unpremultiply_alpha(decoder, JXL_TRUE) == JXL_DEC_SUCCESS,
            imgcache_jxl_decoder_set_input(decoder, buffer.baseAddress, buffer.count) == JXL_DEC_SUCCESS
        else { throw ImageCoreError(.failure, "cannot set up a JPEG XL decoder") }
    }

    deinit {
        imgcache_jxl_decoder_destroy(decoder)
        // After the decoder: it may use the pool until it is destroyed.
        imgcache_jxl_runner_destroy(runner)
    }

    /// The next event subscribed to, or `JXL_DEC_SUCCESS` at the end, or
    /// `JXL_DEC_NEED_IMAGE_OUT_BUFFER` (`JxlDecoderProcessInput`). Throws
    /// `.image` for a file that ends early or that libjxl cannot decode.
    func next() throws -> JxlDecoderStatus {
        let status = imgcache_jxl_decoder_process_input(decoder)
        switch status {
        case JXL_DEC_ERROR: throw ImageCoreError(.image, "corrupt JPEG XL: libjxl cannot decode it")
        case JXL_DEC_NEED_MORE_INPUT: throw ImageCoreError(.image, "corrupt JPEG XL: truncated")
        default: return status
        }
    }

    /// The image header (`JxlDecoderGetBasicInfo`), after `JXL_DEC_BASIC_INFO`.
    func basicInfo() throws -> JxlBasicInfo {
        var info = JxlBasicInfo()
        guard imgcache_jxl_decoder_get_basic_info(decoder, &info) == JXL_DEC_SUCCESS else {
            throw ImageCoreError(.image, "corrupt JPEG XL: no image header")
        }
        return info
    }

    /// The current frame's header (`JxlDecoderGetFrameHeader`), after `JXL_DEC_FRAME`.
    func frameHeader() throws -> JxlFrameHeader {
        var header = JxlFrameHeader()
        guard imgcache_jxl_decoder_get_frame_header(decoder, &header) == JXL_DEC_SUCCESS else {
            throw ImageCoreError(.image, "corrupt JPEG XL: no frame header")
        }
        return header
    }

    /// The colour space of `target` as structured data, nil when it is an
    /// ICC profile (`JxlDecoderGetColorAsEncodedProfile`).
    func encodedProfile(_ target: JxlColorProfileTarget) -> JxlColorEncoding? {
        var encoding = JxlColorEncoding()
        let status = imgcache_jxl_decoder_get_color_as_encoded_profile(decoder, target, &encoding)
        return status == JXL_DEC_SUCCESS ? encoding : nil
    }

    /// The ICC profile of `target`, given or made by libjxl from structured
    /// data (`JxlDecoderGetICCProfileSize`, `JxlDecoderGetColorAsICCProfile`).
    func iccProfile(_ target: JxlColorProfileTarget) -> [UInt8]? {
        var size = 0
        guard imgcache_jxl_decoder_get_icc_profile_size(decoder, target, &size) == JXL_DEC_SUCCESS, size > 0 else {
            return nil
        }
        var icc = [UInt8](repeating: 0, count: size)
        let status = icc.withUnsafeMutableBufferPointer {
            imgcache_jxl_decoder_get_color_as_icc_profile(decoder, target, $0.baseAddress, size)
        }
        return status == JXL_DEC_SUCCESS ? icc : nil
    }

    /// Asks for pixels in sRGB where libjxl may choose (an XYB image):
    /// `JxlDecoderSetPreferredColorProfile`, after `JXL_DEC_COLOR_ENCODING`.
    func preferSRGB(gray: Bool) {
        var srgb = JxlColorEncoding()
        imgcache_jxl_color_encoding_set_to_srgb(&srgb, gray ? JXL_TRUE : JXL_FALSE)
        _ = imgcache_jxl_decoder_set_preferred_color_profile(decoder, &srgb)
    }

    /// Hands this frame's pixels to `receiver`, `channels` 32-bit floats
    /// per pixel, a piece of a row at a time, as libjxl renders them
    /// (`JxlDecoderSetImageOutCallback`). Floats, not bytes: libjxl 0.7
    /// renders a frame asked for in bytes whole first (13 bytes a pixel
    /// measured, 290 MB for 20 megapixels), and streams only float output.
    func deliver(channels: Int, to receiver: JXLPixelReceiver) throws {
        self.receiver = receiver
        var format = JxlPixelFormat(
            num_channels: UInt32(channels), data_type: JXL_TYPE_FLOAT, endianness: JXL_NATIVE_ENDIAN, align: 0)
        let callback: JxlImageOutCallback = { opaque, x, y, count, pixels in
            guard let opaque, let pixels else { return }
            Unmanaged<JXLPixelReceiver>.fromOpaque(opaque).takeUnretainedValue()
                .receive(x: x, y: y, count: count, pixels: pixels.assumingMemoryBound(to: Float.self))
        }
        let status = imgcache_jxl_decoder_set_image_out_callback(
            decoder, &format, callback, Unmanaged.passUnretained(receiver).toOpaque())
        guard status == JXL_DEC_SUCCESS else { throw ImageCoreError(.image, "corrupt JPEG XL: cannot output pixels") }
    }
}

/// Receives the float pixels libjxl renders (a piece of row `y` from
/// column `x`, `count` pixels). With a thread pool set (`JXLDecoderHandle`'s
/// runner), libjxl calls `receive` from its worker threads, several at once
/// for different pixels ("on different pixels": `JxlDecoderSetImageOutCallback`
/// in libjxl 0.7's decode.h), each pixel once, in no promised order; a
/// subclass keeps its state behind a lock. `JxlDecoderProcessInput` returns
/// only once every call has ended.
/// This base class drops them (`JXLDecoder.inspect`).
class JXLPixelReceiver: @unchecked Sendable {
    /// Floats per pixel wanted: 3 (RGB) or 4 (RGBA).
    let channels: Int
    private let firstFailure = Mutex<(any Error)?>(nil)

    init(channels: Int) { self.channels = channels }

    /// The first error met, thrown by the decode loop when libjxl returns
    /// (a callback cannot throw); later pixels are then ignored.
    var failure: (any Error)? { firstFailure.withLock { $0 } }

    func receive(x: Int, y: Int, count: Int, pixels: UnsafePointer<Float>) {}

    /// Keeps `error` unless one came first.
    func record(_ error: any Error) {
        firstFailure.withLock { failure in if failure == nil { failure = error } }
    }

    /// Records pixels libjxl placed outside the image, which it never should.
    func fail(outside piece: (x: Int, y: Int, count: Int)) {
        record(
            ImageCoreError(
                .image, "corrupt JPEG XL: pixels at (\(piece.x), \(piece.y)) × \(piece.count) outside the image"))
    }

    /// Floats in [0, 1] to bytes, rounded to nearest (even on a tie) as
    /// libjxl rounds its own 8-bit output, so the bytes equal djxl's. Adding
    /// 1.5 × 2²³ to a float in [0, 255] leaves it rounded so in the low
    /// mantissa bits, eight samples a vector (the scalar loop this replaced
    /// was not vectorised: 21 instructions a sample, a fifth of a 20 MP
    /// decode, callgrind); `rounded(.toNearestOrEven)` is a call per sample
    /// on x86-64 without SSE4.1.
    static func quantize(_ source: UnsafePointer<Float>, count: Int, into target: UnsafeMutablePointer<UInt8>) {
        let magic: Float = 12_582_912
        let (from, to) = (UnsafeRawPointer(source), UnsafeMutableRawPointer(target))
        var index = 0
        while index &+ 8 <= count {
            // replace(with:where:), not clamped(lowerBound:upperBound:), whose
            // pointwiseMin and pointwiseMax stay calls a sample at a time.
            var value = from.loadUnaligned(fromByteOffset: index &* 4, as: SIMD8<Float>.self)
            value.replace(with: 0, where: value .< 0)
            value.replace(with: 1, where: value .> 1)
            let scaled = value * 255 + SIMD8(repeating: magic)
            to.storeBytes(
                of: SIMD8<UInt8>(truncatingIfNeeded: unsafeBitCast(scaled, to: SIMD8<UInt32>.self)),
                toByteOffset: index, as: SIMD8<UInt8>.self)
            index &+= 8
        }
        while index < count {
            let value = min(max(source[index], 0), 1) * 255
            target[index] = UInt8(truncatingIfNeeded: Int32(value + magic - magic))
            index &+= 1
        }
    }
}
