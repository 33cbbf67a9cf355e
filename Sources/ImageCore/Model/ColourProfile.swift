/// The colour space an image declares for its pixels: an embedded ICC
/// profile, kept byte for byte, or primaries and a transfer function given
/// as numbers (PNG `gAMA`+`cHRM`, AVIF `nclx`).
public struct ColourProfile: Sendable, Equatable {
    /// A colour space given by its white point and primaries (CIE xy) and a
    /// transfer function, where the image has no ICC profile.
    public struct Primaries: Sendable, Equatable {
        /// How encoded values map to linear light.
        public enum Transfer: Sendable, Equatable {
            /// IEC 61966-2-1 (sRGB).
            case sRGB
            /// A power law: linear = encoded ^ `gamma`.
            case gamma(Double)
            /// ITU-R BT.709 (and BT.2020 at 8 to 10 bits).
            case bt709
            /// SMPTE ST 2084 (PQ).
            case pq
            /// ARIB STD-B67 (HLG).
            case hlg
        }

        /// White point, red, green and blue as CIE xy: wx, wy, rx, ry, gx, gy, bx, by.
        public var xy: [Double]
        /// The transfer function.
        public var transfer: Transfer

        /// Creates a colour space from primaries.
        public init(xy: [Double], transfer: Transfer) {
            self.xy = xy
            self.transfer = transfer
        }

        /// Whether it is sRGB itself (BT.709 primaries, D65, the sRGB curve): nothing to convert.
        public var isSRGB: Bool {
            transfer == .sRGB && zip(xy, Self.bt709).allSatisfy { abs($0 - $1) < 0.0005 }
        }

        /// BT.709 / sRGB primaries with the D65 white point.
        public static let bt709 = [0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06]
        /// BT.2020 primaries, D65.
        public static let bt2020 = [0.3127, 0.3290, 0.708, 0.292, 0.170, 0.797, 0.131, 0.046]
        /// Display P3 (SMPTE EG 432-1) primaries, D65.
        public static let displayP3 = [0.3127, 0.3290, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060]
    }

    /// The embedded ICC profile, exactly as stored in the file; nil when
    /// the colour space is given by `primaries`.
    public var icc: [UInt8]?
    /// The colour space as numbers, when there is no ICC profile.
    public var primaries: Primaries?
    /// What to call it: the ICC profile's description tag, or for
    /// numbers, e.g. "nclx BT.2020 PQ" (`--json`'s "icc" field).
    public var name: String

    /// An embedded ICC profile and its description.
    public init(icc: [UInt8], name: String) {
        self.icc = icc
        self.name = name
    }

    /// A colour space given by numbers.
    public init(primaries: Primaries, name: String) {
        self.primaries = primaries
        self.name = name
    }
}

/// What `--colorspace` asks of pixels that carry a profile.
public enum ColourSpace: String, Sendable, CaseIterable {
    /// Converted to sRGB through the profile; nothing embedded in the output.
    case srgb
    /// The values as stored; an encoded output keeps the profile.
    case original
}
