/// Y′CbCr to R′G′B′ as libheif 1.15 converts 8-bit samples (ITU-T H.273):
/// Kr and Kb of the matrix coefficients (1: BT.709; 5, 6 and 2,
/// unspecified: BT.601, libheif's default; 9: BT.2020), luma and chroma
/// stretched from 16...235 and 16...240 when the range is limited.
struct YCbCrConversion {
    let kr: Float
    let kb: Float
    let fullRange: Bool

    /// Nil for the matrices libheif converts otherwise (identity, YCgCo, chromaticity-derived, ...).
    init?(matrix: Int, fullRange: Bool) {
        switch matrix {
        case 1: (kr, kb) = (0.2126, 0.0722)
        case 2, 5, 6: (kr, kb) = (0.299, 0.114)
        case 9: (kr, kb) = (0.2627, 0.0593)
        default: return nil
        }
        self.fullRange = fullRange
    }

    /// `planes` (Y, then Cb, then Cr, `count` floats each) as RGBA bytes, alpha 255.
    func rgba(_ planes: [Float], count: Int) -> [UInt8] {
        let kg = 1 - kr - kb
        let (rCr, bCb) = (2 * (1 - kr), 2 * (1 - kb))
        let (gCb, gCr) = (-2 * kb * (1 - kb) / kg, -2 * kr * (1 - kr) / kg)
        let (lumaScale, chromaScale, lumaOffset): (Float, Float, Float) =
            fullRange ? (1, 1, 0) : (255 / 219, 255 / 224, 16)
        var pixels = [UInt8](repeating: 255, count: count * 4)
        planes.withUnsafeBufferPointer { planes in
            pixels.withUnsafeMutableBufferPointer { out in
                for index in 0..<count {
                    let y = (planes[index] - lumaOffset) * lumaScale
                    let cb = (planes[count + index] - 128) * chromaScale
                    let cr = (planes[2 * count + index] - 128) * chromaScale
                    out[index * 4] = Self.byte(y + rCr * cr)
                    out[index * 4 + 1] = Self.byte(y + gCb * cb + gCr * cr)
                    out[index * 4 + 2] = Self.byte(y + bCb * cb)
                }
            }
        }
        return pixels
    }

    /// `value` rounded to the nearest byte, clamped to 0...255.
    @inline(__always)
    private static func byte(_ value: Float) -> UInt8 {
        let clamped = max(0, min(255, value + 0.5))
        return UInt8(clamped)
    }
}
