import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// ThumbHash, BlurHash and the dominant colour against the reference
/// implementations: BlurHash against woltapp's own C encoder (Debian's
/// python3-blurhash wraps it), ThumbHash against evanw's reference encoder
/// as written in its Rust crate, run here in Python on the same pixels, and
/// the ThumbHash reference decoder's average colour of the README's flower
/// hash against the value its C# port publishes.
struct PlaceholderTests {
    /// Test images: a photo-like gradient, a hard-edged one, and one with alpha.
    static func images() -> [(name: String, width: Int, height: Int, rgba: [UInt8])] {
        func image(_ w: Int, _ h: Int, _ pixel: (Int, Int) -> [UInt8]) -> [UInt8] {
            (0..<h).flatMap { y in (0..<w).flatMap { x in pixel(x, y) } }
        }
        return [
            (
                "gradient", 100, 75,
                image(100, 75) { x, y in [UInt8(x * 255 / 99), UInt8(y * 255 / 74), UInt8((x + y) % 256), 255] }
            ),
            (
                "stripes", 33, 61,
                image(33, 61) { x, y in (x / 5 + y / 7) % 2 == 0 ? [250, 20, 30, 255] : [10, 40, 200, 255] }
            ),
            (
                "alpha", 64, 40,
                image(64, 40) { x, y in [UInt8(x * 4), 128, UInt8(y * 6), UInt8(x < 32 ? 255 : (y * 6) % 256)] }
            ),
        ]
    }

    static let python = "/usr/bin/python3"
    static let blurhashReferencePresent =
        (try? Shell.output("\(python) -c 'import blurhash, PIL' 2>/dev/null")) != nil

    @Test(.enabled(if: blurhashReferencePresent, "needs python3-blurhash (woltapp's C encoder)"))
    func blurHashIsWoltappsCEncoders() throws {
        let work = try TemporaryDirectory()
        for (name, width, height, rgba) in Self.images() {
            // The reference reads RGB: the same pixels, alpha dropped (BlurHash ignores it).
            let ppm = "\(work.path)/\(name).ppm"
            let rgb = stride(from: 0, to: rgba.count, by: 4).flatMap { rgba[$0..<($0 + 3)] }
            try Data(Array("P6\n\(width) \(height)\n255\n".utf8) + rgb).write(to: URL(fileURLWithPath: ppm))
            for (x, y) in [(4, 3), (1, 1), (9, 9)] {
                let reference = try Shell.output(
                    "\(Self.python) -c 'import sys, blurhash; print(blurhash.encode(sys.argv[1], \(x), \(y)))' '\(ppm)'"
                )
                let ours = BlurHash.encode(rgba: rgba, width: width, height: height, componentsX: x, componentsY: y)
                #expect(ours + "\n" == String(decoding: reference, as: UTF8.self), "\(name) \(x)×\(y)")
            }
        }
    }

    /// evanw/thumbhash's `rgba_to_thumb_hash` (rust/src/lib.rs), line for
    /// line in Python (f64, where the Rust uses f32 and the JavaScript f64).
    static let thumbHashReference = """
        import sys, math
        w, h = int(sys.argv[1]), int(sys.argv[2]); rgba = sys.stdin.buffer.read()
        ar = ag = ab = aa = 0.0
        for i in range(0, len(rgba), 4):
            a = rgba[i+3] / 255.0; ar += a / 255.0 * rgba[i]; ag += a / 255.0 * rgba[i+1]; ab += a / 255.0 * rgba[i+2]; aa += a
        if aa > 0: ar /= aa; ag /= aa; ab /= aa
        has_alpha = aa < w * h; lim = 5 if has_alpha else 7
        jsround = lambda v: math.floor(v + 0.5)
        lx = max(1, jsround(lim * w / max(w, h))); ly = max(1, jsround(lim * h / max(w, h)))
        L, P, Q, A = [], [], [], []
        for i in range(0, len(rgba), 4):
            a = rgba[i+3] / 255.0
            r = ar * (1 - a) + a / 255.0 * rgba[i]; g = ag * (1 - a) + a / 255.0 * rgba[i+1]; b = ab * (1 - a) + a / 255.0 * rgba[i+2]
            L.append((r + g + b) / 3); P.append((r + g) / 2 - b); Q.append(r - g); A.append(a)
        def enc(ch, nx, ny):
            dc, ac, scale = 0.0, [], 0.0
            for cy in range(ny):
                cx = 0
                while cx * ny < nx * (ny - cy):
                    fx = [math.cos(math.pi / w * cx * (x + 0.5)) for x in range(w)]
                    f = 0.0
                    for y in range(h):
                        fy = math.cos(math.pi / h * cy * (y + 0.5))
                        for x in range(w): f += ch[x + y * w] * fx[x] * fy
                    f /= w * h
                    if cx > 0 or cy > 0: ac.append(f); scale = max(scale, abs(f))
                    else: dc = f
                    cx += 1
            if scale > 0: ac = [0.5 + 0.5 / scale * v for v in ac]
            return dc, ac, scale
        ldc, lac, ls = enc(L, max(3, lx), max(3, ly)); pdc, pac, ps = enc(P, 3, 3); qdc, qac, qs = enc(Q, 3, 3)
        adc, aac, asc = enc(A, 5, 5) if has_alpha else (1.0, [], 1.0)
        land = w > h
        h24 = jsround(63 * ldc) | jsround(31.5 + 31.5 * pdc) << 6 | jsround(31.5 + 31.5 * qdc) << 12 | jsround(31 * ls) << 18 | (1 << 23 if has_alpha else 0)
        h16 = (ly if land else lx) | jsround(63 * ps) << 3 | jsround(63 * qs) << 9 | (1 << 15 if land else 0)
        out = [h24 & 255, (h24 >> 8) & 255, h24 >> 16, h16 & 255, h16 >> 8]
        if has_alpha: out.append(jsround(15 * adc) | jsround(15 * asc) << 4)
        odd = False
        for f in lac + pac + qac + aac:
            u = jsround(15 * f)
            if odd: out[-1] |= u << 4
            else: out.append(u)
            odd = not odd
        print(bytes(out).hex())
        """

    @Test func thumbHashIsTheReferenceEncoders() throws {
        let work = try TemporaryDirectory()
        let script = "\(work.path)/thumbhash.py"
        try Self.thumbHashReference.write(toFile: script, atomically: true, encoding: .utf8)
        for (name, width, height, rgba) in Self.images() {
            let input = "\(work.path)/\(name).rgba"
            try Data(rgba).write(to: URL(fileURLWithPath: input))
            let reference = try Shell.output("\(Self.python) '\(script)' \(width) \(height) < '\(input)'")
            let ours = ThumbHash.encode(rgba: rgba, width: width, height: height)
            #expect(
                ours.map { String(format: "%02x", $0) }.joined() + "\n" == String(decoding: reference, as: UTF8.self),
                "\(name)")
        }
    }

    /// The reference decoder's `thumb_hash_to_average_rgba`, checked on the
    /// flower hash its README shows (values from the C# port's tests), then
    /// on ours: the average it gives back is the image's.
    @Test func thumbHashCarriesTheAverageColour() throws {
        func average(_ hash: [UInt8]) -> (Double, Double, Double) {
            let header = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
            let l = Double(header & 63) / 63, p = Double(header >> 6 & 63) / 31.5 - 1,
                q = Double(header >> 12 & 63) / 31.5 - 1
            let b = l - 2.0 / 3.0 * p, r = (3 * l - b + q) / 2
            return (min(max(r, 0), 1), min(max(r - q, 0), 1), min(max(b, 0), 1))
        }
        let flower: [UInt8] = [
            0x93, 0x4A, 0x06, 0x2D, 0x06, 0x92, 0x56, 0xC3, 0x74, 0x05, 0x58, 0x67, 0xDA, 0x8A, 0xB6, 0x67, 0x94, 0x90,
            0x51, 0x07, 0x19,
        ]
        #expect(ImagePlaceholder.base64(flower) == "k0oGLQaSVsN0BVhn2oq2Z5SQUQcZ")
        let published = average(flower)
        #expect(abs(published.0 - 0.484127015) < 1e-6 && abs(published.1 - 0.341269821) < 1e-6)
        #expect(abs(published.2 - 0.0793650597) < 1e-6)
        let solid: [UInt8] = (0..<(20 * 10 * 4)).map { [200, 100, 50, 255][$0 % 4] }
        let back = average(ThumbHash.encode(rgba: solid, width: 20, height: 10))
        #expect(abs(back.0 - 200.0 / 255) < 0.02 && abs(back.1 - 100.0 / 255) < 0.02 && abs(back.2 - 50.0 / 255) < 0.03)
    }

    @Test func dominantColourIsTheFullestBinsMean() {
        // 60 % a red in two shades, 40 % blue: the reds' bin wins, its mean is the answer.
        var pixels: [UInt8] = []
        for index in 0..<100 {
            pixels += index < 30 ? [240, 10, 10, 255] : index < 60 ? [242, 12, 8, 255] : [0, 0, 255, 255]
        }
        #expect(DominantColour.of(rgba: pixels) == "#f10b09")
        // Transparent pixels do not count, unless nothing else is there.
        let mostlyClear = [UInt8](repeating: 0, count: 90 * 4) + [UInt8](repeating: 255, count: 10 * 4)
        #expect(DominantColour.of(rgba: mostlyClear) == "#ffffff")
        #expect(DominantColour.of(rgba: [1, 2, 3, 0]) == "#010203")
    }

    @Test func encodingsMatchTheirSpecifications() {
        // RFC 4648 section 10.
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE="]
        for (plain, encoded) in vectors { #expect(ImagePlaceholder.base64(Array(plain.utf8)) == encoded) }
        // BlurHash's base 83, most significant digit first.
        #expect(BlurHash.base83(0, digits: 1) == "0" && BlurHash.base83(82, digits: 1) == "~")
        #expect(BlurHash.base83(83 * 83 + 1, digits: 4) == "0101")
        // A record reads back; a damaged one does not.
        let placeholder = ImagePlaceholder(
            thumbHash: "k0oG", blurHash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj", dominantColour: "#a1b2c3")
        #expect(ImagePlaceholder(recordValue: placeholder.recordValue) == placeholder)
        #expect(ImagePlaceholder(recordValue: String(placeholder.recordValue.prefix(20))) == nil)
    }
}
