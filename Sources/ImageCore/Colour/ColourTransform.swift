internal import CImageCoreShims

/// A Little CMS transform from an image's colour space to 8-bit sRGB, owned
/// here and freed in `deinit`. Little CMS is loaded (dlopen) by the first
/// transform made in a process, never before: most images carry no profile.
///
/// Thread safety: a transform converts on one thread at a time (it keeps
/// Little CMS's one-pixel cache).
final class ColourTransform {
    /// How the pixels handed to `convert` are laid out.
    enum Layout {
        /// RGB, 3 bytes a pixel.
        case rgb
        /// RGBA, 4 bytes a pixel; alpha is kept.
        case rgba
        /// CMYK, 4 bytes a pixel, as libjpeg returns it; `inverted` for
        /// Adobe's JPEGs (an APP14 marker), where 0 is full ink.
        case cmyk(inverted: Bool)

        var bytesPerPixel: Int {
            if case .rgb = self { return 3 }
            return 4
        }
    }

    private let handle: UnsafeMutableRawPointer
    /// Bytes a pixel in, and out (3 RGB or 4 RGBA).
    let inputBytes: Int, outputBytes: Int

    /// A transform from `profile` for pixels in `layout` to sRGB with
    /// `outputChannels` (3 or 4). Throws `ICCError` when Little CMS cannot
    /// be loaded, refuses the profile, or the profile does not describe
    /// such pixels (a CMYK profile on RGB data). The corresponding C
    /// functions are `cmsOpenProfileFromMem`, `cmsCreateRGBProfile` and
    /// `cmsCreateTransform`.
    init(_ profile: ColourProfile, layout: Layout, outputChannels: Int) throws(ICCError) {
        var message = [CChar](repeating: 0, count: 256)
        guard imgcache_lcms_load(&message) == 0 else { throw ICCError(Self.text(message)) }
        let source: UnsafeMutableRawPointer?
        if let icc = profile.icc {
            source = icc.withUnsafeBufferPointer { imgcache_lcms_open_profile($0.baseAddress, $0.count, &message) }
        } else if let primaries = profile.primaries {
            source = Self.profile(primaries)
        } else {
            source = nil
        }
        guard let source else { throw ICCError("profile \"\(profile.name)\" ignored: \(Self.text(message))") }
        defer { imgcache_lcms_close_profile(source) }
        let space = imgcache_lcms_colour_space(source)
        let lcmsLayout: imgcache_lcms_layout
        switch (layout, space) {
        case (.rgb, Self.rgbSignature): lcmsLayout = IMGCACHE_LCMS_RGB8
        case (.rgba, Self.rgbSignature): lcmsLayout = IMGCACHE_LCMS_RGBA8
        case (.rgb, Self.graySignature): lcmsLayout = IMGCACHE_LCMS_GRAY_AS_RGB8
        case (.rgba, Self.graySignature): lcmsLayout = IMGCACHE_LCMS_GRAY_AS_RGBA8
        case (.cmyk(let inverted), Self.cmykSignature):
            lcmsLayout = inverted ? IMGCACHE_LCMS_CMYK8_INVERTED : IMGCACHE_LCMS_CMYK8
        default:
            throw ICCError("profile \"\(profile.name)\" ignored: it is not for \(layout) pixels")
        }
        guard let handle = imgcache_lcms_create_transform(source, lcmsLayout, Int32(outputChannels), &message) else {
            throw ICCError("profile \"\(profile.name)\" ignored: \(Self.text(message))")
        }
        self.handle = handle
        inputBytes = layout.bytesPerPixel
        outputBytes = outputChannels
    }

    deinit { imgcache_lcms_delete_transform(handle) }

    /// Converts `count` pixels from `input` to `output` (which may be the
    /// same memory when both have as many bytes a pixel). Alpha, where both
    /// have it, is kept. The corresponding C function is `cmsDoTransform`.
    func convert(_ input: UnsafeRawPointer, to output: UnsafeMutableRawPointer, count: Int) {
        imgcache_lcms_transform(handle, input, output, UInt32(count))
    }

    /// Converts every pixel of `pixels` in place (same layout in and out).
    func convert(inPlace pixels: UnsafeMutableRawBufferPointer) {
        guard let base = pixels.baseAddress else { return }
        convert(base, to: base, count: pixels.count / inputBytes)
    }

    /// An ICC profile for a colour space given by numbers (PNG gAMA/cHRM,
    /// AVIF nclx), for outputs that can only carry ICC. Loads Little CMS.
    /// The corresponding C functions are `cmsCreateRGBProfile` and `cmsSaveProfileToMem`.
    static func iccProfile(for primaries: ColourProfile.Primaries) throws(ICCError) -> [UInt8] {
        var message = [CChar](repeating: 0, count: 256)
        guard imgcache_lcms_load(&message) == 0 else { throw ICCError(text(message)) }
        guard let profile = profile(primaries) else { throw ICCError("cannot make a profile of these primaries") }
        defer { imgcache_lcms_close_profile(profile) }
        var size: UInt32 = 0
        guard imgcache_lcms_save_profile(profile, nil, &size) == 0, size > 0 else {
            throw ICCError("cannot write the profile")
        }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        let saved = bytes.withUnsafeMutableBufferPointer { imgcache_lcms_save_profile(profile, $0.baseAddress, &size) }
        guard saved == 0 else { throw ICCError("cannot write the profile") }
        return Array(bytes.prefix(Int(size)))
    }

    private static let rgbSignature: UInt32 = 0x5247_4220  // 'RGB '
    private static let graySignature: UInt32 = 0x4752_4159  // 'GRAY'
    private static let cmykSignature: UInt32 = 0x434D_594B  // 'CMYK'

    private static func profile(_ primaries: ColourProfile.Primaries) -> UnsafeMutableRawPointer? {
        let (transfer, gamma): (imgcache_lcms_transfer, Double) =
            switch primaries.transfer {
            case .sRGB: (IMGCACHE_LCMS_TRANSFER_SRGB, 0)
            case .gamma(let value): (IMGCACHE_LCMS_TRANSFER_GAMMA, value)
            case .bt709: (IMGCACHE_LCMS_TRANSFER_BT709, 0)
            case .pq: (IMGCACHE_LCMS_TRANSFER_PQ, 0)
            case .hlg: (IMGCACHE_LCMS_TRANSFER_HLG, 0)
            }
        guard primaries.xy.count == 8 else { return nil }
        return primaries.xy.withUnsafeBufferPointer {
            imgcache_lcms_create_rgb_profile($0.baseAddress, transfer, gamma)
        }
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
