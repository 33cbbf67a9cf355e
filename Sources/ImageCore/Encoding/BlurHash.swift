#if canImport(Glibc)
    import Glibc
#endif

/// BlurHash (Wolt, woltapp/blurhash): a few cosine components of the image
/// in linear light, quantised into base 83. Written from the reference C
/// encoder (`blurHashForPixels`), in `Float` with its order of operations,
/// so that the strings agree with it character for character.
enum BlurHash {
    /// The hash of `rgba` (`width` × `height`, alpha ignored) with
    /// `componentsX` × `componentsY` components (each 1 to 9).
    static func encode(
        rgba: [UInt8], width: Int, height: Int, componentsX: Int = 4, componentsY: Int = 3
    ) -> String {
        precondition((1...9).contains(componentsX) && (1...9).contains(componentsY) && rgba.count == width * height * 4)
        let linear = (0...255).map { sRGBToLinear($0) }
        var factors: [(Float, Float, Float)] = []
        for y in 0..<componentsY {
            for x in 0..<componentsX {
                factors.append(basisProduct(x, y, rgba: rgba, width: width, height: height, linear: linear))
            }
        }
        var hash = base83((componentsX - 1) + (componentsY - 1) * 9, digits: 1)
        let ac = factors.dropFirst()
        let maximumValue: Float
        if ac.isEmpty {
            maximumValue = 1
            hash += base83(0, digits: 1)
        } else {
            let actualMaximum = ac.map { max(abs($0.0), abs($0.1), abs($0.2)) }.max()!
            let quantised = Int(max(0, min(82, floorf(actualMaximum * 166 - 0.5))))
            maximumValue = Float(quantised + 1) / 166
            hash += base83(quantised, digits: 1)
        }
        let dc = factors[0]
        hash += base83(linearToSRGB(dc.0) << 16 | linearToSRGB(dc.1) << 8 | linearToSRGB(dc.2), digits: 4)
        for factor in ac {
            let quantise = { (value: Float) in
                Int(max(0, min(18, floorf(signedSquareRoot(value / maximumValue) * 9 + 9.5))))
            }
            hash += base83(quantise(factor.0) * 19 * 19 + quantise(factor.1) * 19 + quantise(factor.2), digits: 2)
        }
        return hash
    }

    /// The image's projection on the cosine of frequencies `x`, `y`
    /// (normalised: 1 for the DC term, 2 for the others), per channel.
    private static func basisProduct(
        _ xComponent: Int, _ yComponent: Int, rgba: [UInt8], width: Int, height: Int, linear: [Float]
    ) -> (Float, Float, Float) {
        var (r, g, b): (Float, Float, Float) = (0, 0, 0)
        let normalisation: Float = xComponent == 0 && yComponent == 0 ? 1 : 2
        for y in 0..<height {
            let cosY = cosf(Float(Double.pi * Double(yComponent) * Double(y) / Double(height)))
            for x in 0..<width {
                let basis = cosf(Float(Double.pi * Double(xComponent) * Double(x) / Double(width))) * cosY
                let pixel = (y * width + x) * 4
                r += basis * linear[Int(rgba[pixel])]
                g += basis * linear[Int(rgba[pixel + 1])]
                b += basis * linear[Int(rgba[pixel + 2])]
            }
        }
        let scale = normalisation / Float(width * height)
        return (r * scale, g * scale, b * scale)
    }

    private static func sRGBToLinear(_ value: Int) -> Float {
        let v = Float(value) / 255
        return v <= 0.04045 ? Float(Double(v) / 12.92) : powf(Float((Double(v) + 0.055) / 1.055), 2.4)
    }

    private static func linearToSRGB(_ value: Float) -> Int {
        let v = max(0, min(1, value))
        if v <= 0.0031308 { return Int(Double(v) * 12.92 * 255 + 0.5) }
        return Int((1.055 * Double(powf(v, Float(1 / 2.4 as Double))) - 0.055) * 255 + 0.5)
    }

    private static func signedSquareRoot(_ value: Float) -> Float {
        copysignf(powf(abs(value), 0.5), value)
    }

    private static let alphabet = Array(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    /// `value` in base 83, most significant digit first, `digits` long.
    static func base83(_ value: Int, digits: Int) -> String {
        var result = ""
        var divisor = 1
        for _ in 1..<max(digits, 1) { divisor *= 83 }
        for _ in 0..<digits {
            result.append(alphabet[(value / divisor) % 83])
            divisor /= 83
        }
        return result
    }
}
