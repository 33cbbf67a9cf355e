internal import CJXL

/// The colour space of a JPEG XL, as libjxl reports it (the profile is
/// entropy-coded in the codestream: no header walk can read it). Only the
/// header is read; no pixel is decoded.
enum JXLColour {
    /// Which colour space to report.
    enum Target {
        /// The one the file was made in (`--json`'s `icc`).
        case declared
        /// The one `JXLDecoder` decodes the pixels to.
        case pixels
    }

    /// Chooses what a decode outputs, at `JXL_DEC_COLOR_ENCODING`: sRGB for
    /// an XYB image whose original space is an ICC profile (libjxl would
    /// give linear sRGB; it can convert XYB only to spaces it can describe
    /// by numbers). Any other image comes out in its own space.
    static func chooseOutput(_ handle: JXLDecoderHandle, basic: JxlBasicInfo) {
        guard basic.uses_original_profile == 0, handle.encodedProfile(JXL_COLOR_PROFILE_TARGET_ORIGINAL) == nil
        else { return }
        handle.preferSRGB(gray: basic.num_color_channels == 1)
    }

    /// The profile of `target`: none for sRGB, else its ICC profile (given in
    /// the file, or made by libjxl from the numbers the file gives).
    static func read(_ bytes: [UInt8], target: Target) -> EmbeddedProfile.Found {
        do {
            return try bytes.withUnsafeBufferPointer { buffer in
                let handle = try JXLDecoderHandle(buffer, events: JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING)
                var basic = JxlBasicInfo()
                while true {
                    switch try handle.next() {
                    case JXL_DEC_BASIC_INFO: basic = try handle.basicInfo()
                    case JXL_DEC_COLOR_ENCODING:
                        if target == .pixels { chooseOutput(handle, basic: basic) }
                        let which =
                            target == .pixels ? JXL_COLOR_PROFILE_TARGET_DATA : JXL_COLOR_PROFILE_TARGET_ORIGINAL
                        if let encoding = handle.encodedProfile(which), isSRGB(encoding) { return .none }
                        guard let icc = handle.iccProfile(which) else {
                            return .ignored("JPEG XL colour space has no ICC form; taken as sRGB")
                        }
                        return EmbeddedProfile.icc(icc, from: "JPEG XL")
                    default: return .none
                    }
                }
            }
        } catch {
            return .none
        }
    }

    /// Whether `encoding` is sRGB (or gray with sRGB's curve): nothing to convert.
    static func isSRGB(_ encoding: JxlColorEncoding) -> Bool {
        let gray = encoding.color_space == JXL_COLOR_SPACE_GRAY
        return (encoding.color_space == JXL_COLOR_SPACE_RGB || gray) && encoding.white_point == JXL_WHITE_POINT_D65
            && (gray || encoding.primaries == JXL_PRIMARIES_SRGB)
            && encoding.transfer_function == JXL_TRANSFER_FUNCTION_SRGB
    }
}
