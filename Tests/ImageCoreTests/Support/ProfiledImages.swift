import Foundation
import ImageCore
import TestSupport

/// Images with ICC profiles, made at test time from the corpus and the
/// profiles Debian ships (icc-profiles-free, libgs-common), each with the
/// format's own reference tool: `cjpeg -icc`, `webpmux -set icc`,
/// `avifenc --icc`; PNG's `iCCP` chunk by a few lines of Python's zlib
/// (pnmtopng cannot write one).
enum ProfiledImages {
    /// "Compatible with Adobe RGB (1998)", a matrix/TRC profile of 580 bytes (v2 `desc`).
    static let adobeRGB = "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc"
    /// Ghostscript's SWOP press profile, LUT-based, 187 484 bytes: three JPEG APP2 segments.
    static let cmyk = "/usr/share/color/icc/ghostscript/default_cmyk.icc"
    /// A photo with colour everywhere (512×600), from the corpus.
    static let photo = "images/jpeg_baseline_420_photo_grace-hopper.jpg"

    static func bytes(_ path: String) throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) }

    /// The format `bytes` sniff as, if one imgcache supports.
    static func format(of bytes: [UInt8]) -> ImageFormat? {
        if case .supported(let format) = ImageFormat.sniff(bytes) { return format }
        return nil
    }

    /// The corpus photo as PPM, exactly as djpeg decodes it.
    static func photoPPM(in directory: TemporaryDirectory) throws -> String {
        let path = "\(directory.path)/photo.ppm"
        try Data(Corpus.bytes(photo)).write(to: URL(fileURLWithPath: "\(directory.path)/photo.jpg"))
        _ = try Shell.output("djpeg -ppm -outfile '\(path)' '\(directory.path)/photo.jpg'")
        return path
    }

    /// The photo re-encoded by cjpeg with `profile` in APP2 (split as cjpeg splits it).
    static func jpeg(profile: String, in directory: TemporaryDirectory) throws -> [UInt8] {
        try Shell.output("cjpeg -quality 92 -icc '\(profile)' '\(try photoPPM(in: directory))'")
    }

    /// The photo as PNG with `profile` in an `iCCP` chunk after IHDR.
    static func png(profile: String, in directory: TemporaryDirectory) throws -> [UInt8] {
        let plain = "\(directory.path)/plain.png"
        _ = try Shell.output("pnmtopng '\(try photoPPM(in: directory))' > '\(plain)'")
        let script = """
            import sys, zlib, struct
            png = open(sys.argv[1], 'rb').read(); icc = open(sys.argv[2], 'rb').read()
            data = b'ICC profile\\0\\0' + zlib.compress(icc)
            chunk = struct.pack('>I', len(data)) + b'iCCP' + data + struct.pack('>I', zlib.crc32(b'iCCP' + data))
            sys.stdout.buffer.write(png[:33] + chunk + png[33:])
            """
        try script.write(toFile: "\(directory.path)/iccp.py", atomically: true, encoding: .utf8)
        return try Shell.output("python3 '\(directory.path)/iccp.py' '\(plain)' '\(profile)'")
    }

    /// A WebP (lossless still from the photo, or `source`) with `profile` set by webpmux.
    static func webp(profile: String, source: [UInt8]? = nil, in directory: TemporaryDirectory) throws -> [UInt8] {
        let plain = "\(directory.path)/plain.webp"
        if let source {
            try Data(source).write(to: URL(fileURLWithPath: plain))
        } else {
            _ = try Shell.output("cwebp -quiet -lossless '\(try photoPPM(in: directory))' -o '\(plain)'")
        }
        return try Shell.output("webpmux -set icc '\(profile)' '\(plain)' -o - ")
    }

    /// A lossless AVIF of the photo with `profile` (or, with `cicp`, nclx code points "P/T/M").
    static func avif(profile: String?, cicp: String? = nil, in directory: TemporaryDirectory) throws -> [UInt8] {
        let plain = "\(directory.path)/plain.png"
        _ = try Shell.output("pnmtopng '\(try photoPPM(in: directory))' > '\(plain)'")
        let colour = profile.map { "--icc '\($0)'" } ?? "--cicp \(cicp ?? "1/13/6")"
        let out = "\(directory.path)/out.avif"
        _ = try Shell.output("avifenc -s 10 -l \(colour) '\(plain)' '\(out)' >/dev/null")
        return try bytes(out)
    }

    /// `pixels` (PPM of the as-stored values) converted to sRGB by Little
    /// CMS's own tificc, perceptual intent, as an independent reference.
    static func tificc(_ ppm: [UInt8], profile: String, in directory: TemporaryDirectory) throws -> NetpbmImage {
        let base = "\(directory.path)/ref"
        try Data(ppm).write(to: URL(fileURLWithPath: "\(base).ppm"))
        _ = try Shell.output(
            "pnmtotiff '\(base).ppm' > '\(base).tif' 2>/dev/null && tificc -i '\(profile)' -t 0 '\(base).tif' '\(base).out.tif' >/dev/null 2>&1"
        )
        return try NetpbmImage(Shell.output("tifftopnm '\(base).out.tif' 2>/dev/null"))
    }

    /// The share of pixels whose every channel is within `tolerance`
    /// (RGB compared; `a` and `b` may be RGB or RGBA).
    static func closeShare(_ a: NetpbmImage, _ b: NetpbmImage, tolerance: Int) -> Double {
        guard a.width == b.width, a.height == b.height else { return 0 }
        let pixels = a.width * a.height
        var close = 0
        for pixel in 0..<pixels {
            let near = (0..<3).allSatisfy { channel in
                abs(Int(a.samples[pixel * a.depth + channel]) - Int(b.samples[pixel * b.depth + channel])) <= tolerance
            }
            if near { close += 1 }
        }
        return Double(close) / Double(pixels)
    }

    /// The APP segments (marker, payload) of a JPEG, up to its first scan.
    static func jpegSegments(_ bytes: [UInt8]) -> [(marker: UInt8, payload: [UInt8])] {
        var segments: [(UInt8, [UInt8])] = []
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF, bytes[index + 1] != 0xDA {
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            segments.append((bytes[index + 1], Array(bytes[(index + 4)..<min(bytes.count, index + 2 + length)])))
            index += 2 + length
        }
        return segments
    }

    /// The ICC profile of a JPEG, its APP2 segments joined in sequence order (independent of the reader under test).
    static func jpegProfile(_ bytes: [UInt8]) -> (profile: [UInt8], segments: Int) {
        let parts = jpegSegments(bytes).filter {
            $0.marker == 0xE2 && $0.payload.starts(with: Array("ICC_PROFILE".utf8))
        }
        .sorted { $0.payload[12] < $1.payload[12] }
        return (parts.flatMap { $0.payload.dropFirst(14) }, parts.count)
    }
}
