import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The JPEG XL test images, made once per test process by
/// `scripts/make-jxl-samples.sh` (cjxl from generated pixels; the script
/// lists them), and djxl's decodes of them: the references.
enum JXLSamples {
    /// Where the script wrote them; removed when the process exits.
    static let directory: String = {
        let path = TestRunDirectory.newPath("imgcache-jxl-samples-")
        let script = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/make-jxl-samples.sh").path
        _ = try? Shell.output("sh '\(script)' '\(path)'")
        atexit { try? FileManager.default.removeItem(atPath: JXLSamples.directory) }
        return path
    }()

    /// Whether cjxl and djxl are installed (`make deps`); tests skip with this reason otherwise.
    static let missingTools: String? = {
        guard (try? Shell.output("command -v cjxl && command -v djxl")) != nil else {
            return "cjxl/djxl not installed (libjxl-tools; make deps installs it)"
        }
        return nil
    }()

    static func bytes(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name)")))
    }

    /// djxl's decode of `name` as RGBA, through its PNG (`pngtopam -alphapam`).
    static func reference(_ name: String, colourSpace: String? = nil) throws -> NetpbmImage {
        let png = "\(directory)/\(name).\(colourSpace ?? "own").png"
        let option = colourSpace.map { "--color_space=\($0)" } ?? ""
        _ = try Shell.output("djxl '\(directory)/\(name)' '\(png)' --bits_per_sample=8 \(option) >/dev/null 2>&1")
        return try NetpbmImage(Shell.output("pngtopam -alphapam '\(png)'"))
    }

    /// djxl's decode of `name` written as a (16-bit) PPM, read as 8-bit RGBA
    /// the way a PNG's 16-bit samples become 8: v × 255 / 65535, rounded.
    /// (djxl 0.7 writes 16-bit samples to a PNG however many bits are asked for.)
    static func reference16(_ name: String) throws -> [UInt8] {
        let path = "\(directory)/\(name).ppm"
        let ppm = try Shell.output("djxl '\(directory)/\(name)' '\(path)' >/dev/null 2>&1 && cat '\(path)'")
        var fields: [Int] = []
        var index = 2
        while fields.count < 3 {
            while ppm[index] == 0x20 || ppm[index] == 0x0A { index += 1 }
            var value = 0
            while ppm[index] >= 0x30 && ppm[index] <= 0x39 {
                value = value * 10 + Int(ppm[index] - 0x30)
                index += 1
            }
            fields.append(value)
        }
        index += 1
        let (width, height, maxValue) = (fields[0], fields[1], fields[2])
        var rgba: [UInt8] = []
        for pixel in 0..<(width * height) {
            for channel in 0..<3 {
                let at = index + (pixel * 3 + channel) * 2
                let sample =
                    maxValue > 255 ? Int(ppm[at]) << 8 | Int(ppm[at + 1]) : Int(ppm[index + pixel * 3 + channel])
                rgba.append(UInt8((Double(sample) * 255 / Double(maxValue)).rounded()))
            }
            rgba.append(255)
        }
        return rgba
    }
}
