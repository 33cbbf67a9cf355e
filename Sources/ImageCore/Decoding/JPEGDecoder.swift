internal import CTurboJPEG

/// JPEG through TurboJPEG, with its default islow DCT and fancy upsampling, so
/// the pixels equal `djpeg -rgb -ppm`'s.
struct JPEGDecoder {
    let limits: DecodingLimits

    func inspect(_ bytes: [UInt8]) throws -> ImageInfo {
        let header = try TurboJPEGDecompressor().readHeader(bytes)
        try limits.check(width: header.width, height: header.height)
        let (scans, complete) = JPEGMarkers.walk(bytes)
        guard scans <= limits.maxJPEGScans else {
            throw ImageCoreError(.image, "too many JPEG scans: \(scans) exceeds the limit of \(limits.maxJPEGScans)")
        }
        // Checked before storing, so a body cut short is never cached.
        guard complete else { throw ImageCoreError(.image, "corrupt JPEG: truncated (no end-of-image marker)") }
        return ImageInfo(format: .jpeg, width: header.width, height: header.height,
                         orientation: EXIFOrientation.read(jpeg: bytes))
    }

    /// Decodes at full size, or, for a `target` size, at the smallest of
    /// TurboJPEG's DCT scales (1/8 … 2/1) that is still at least that large:
    /// the caller resamples the rest, from far fewer pixels.
    func decode(_ bytes: [UInt8], atLeast target: (width: Int, height: Int)? = nil) throws -> DecodedImage {
        _ = try inspect(bytes)
        let decompressor = try TurboJPEGDecompressor()
        let header = try decompressor.readHeader(bytes)
        let size = target.map { TurboJPEGDecompressor.scaledSize(header, atLeast: $0) } ?? (header.width, header.height)
        let pixels = try decompressor.decompressRGBA(bytes, header: header, width: size.0, height: size.1)
        return DecodedImage(format: .jpeg, width: size.0, height: size.1, frames: [.init(pixels: pixels)])
    }
}

/// Owns a TurboJPEG decompression handle; all TurboJPEG calls live here.
final class TurboJPEGDecompressor {
    struct Header {
        var width: Int
        var height: Int
        var colorspace: Int32
    }

    private let handle: tjhandle

    /// The corresponding C function is `tjInitDecompress`.
    init() throws {
        guard let handle = tjInitDecompress() else { throw ImageCoreError(.image, "cannot initialise TurboJPEG") }
        self.handle = handle
    }

    deinit {
        tjDestroy(handle)
    }

    /// Reads dimensions and colour space. The corresponding C function is `tjDecompressHeader3`.
    func readHeader(_ bytes: [UInt8]) throws -> Header {
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let status = bytes.withUnsafeBufferPointer { buffer in
            tjDecompressHeader3(handle, buffer.baseAddress, UInt(buffer.count), &width, &height, &subsampling, &colorspace)
        }
        guard status == 0 else { throw ImageCoreError(.image, "corrupt JPEG: \(message())") }
        return Header(width: Int(width), height: Int(height), colorspace: colorspace)
    }

    /// Decodes to RGBA. CMYK and YCCK images are decoded to CMYK and converted
    /// the way `djpeg` converts them (R = C × K / 255, no colour management).
    /// Warnings are accepted (browsers show such images) except a premature
    /// end of data: a truncated file is an error. The corresponding C
    /// function is `tjDecompress2`.
    func decompressRGBA(_ bytes: [UInt8], header: Header, width: Int, height: Int) throws -> [UInt8] {
        let isCMYK = header.colorspace == Int32(TJCS_CMYK.rawValue) || header.colorspace == Int32(TJCS_YCCK.rawValue)
        let format = isCMYK ? TJPF_CMYK : TJPF_RGBA
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let status = bytes.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                tjDecompress2(handle, source.baseAddress, UInt(source.count), target.baseAddress, Int32(width), 0,
                              Int32(height), Int32(format.rawValue), 0)
            }
        }
        if status != 0 {
            let text = message()
            let isWarning = tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue)
            guard isWarning && !text.contains("Premature end") else {
                throw ImageCoreError(.image, "corrupt JPEG: \(text)")
            }
        }
        if isCMYK { Self.convertCMYKToRGBA(&pixels) }
        return pixels
    }

    /// The smallest DCT-scaled size (TJSCALED of each scaling factor) that
    /// covers `target` in both dimensions; full size if none is smaller.
    /// The corresponding C function is `tjGetScalingFactors`.
    static func scaledSize(_ header: Header, atLeast target: (width: Int, height: Int)) -> (Int, Int) {
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count) else { return (header.width, header.height) }
        var best = (header.width, header.height)
        for factor in UnsafeBufferPointer(start: factors, count: Int(count)) {
            let num = Int(factor.num), denom = Int(factor.denom)
            let width = (header.width * num + denom - 1) / denom, height = (header.height * num + denom - 1) / denom
            if width >= target.width && height >= target.height && width * height < best.0 * best.1 {
                best = (width, height)
            }
        }
        return best
    }

    /// libjpeg-turbo's `cmyk_to_rgb` (cmyk.h), in place.
    private static func convertCMYKToRGBA(_ pixels: inout [UInt8]) {
        pixels.withUnsafeMutableBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                let k = UInt32(buffer[index + 3])
                for channel in 0..<3 {
                    buffer[index + channel] = UInt8((UInt32(buffer[index + channel]) * k + 127) / 255)
                }
                buffer[index + 3] = 255
                index += 4
            }
        }
    }

    /// The corresponding C function is `tjGetErrorStr2`.
    private func message() -> String {
        tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown error"
    }
}
