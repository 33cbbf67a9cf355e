import Foundation
import TestSupport
import Testing

@testable import ImageCore

private let jpegToolsPresent = ["/usr/bin/cjpeg", "/usr/bin/djpeg"].allSatisfy {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// JPEGs of every kind `cjpeg` writes (each sampling factor, grayscale,
/// progressive, arithmetic coding, restart markers, RGB without a colour
/// transform), made in the test from a real photo when the corpus is
/// present, and decoded pixel for pixel as `djpeg -rgb -ppm` decodes them.
@Suite(.enabled(if: jpegToolsPresent, "cjpeg/djpeg (libjpeg-turbo-progs) are not installed"))
struct JPEGReferenceTests {
    /// `cjpeg` options: every `-sample` factor it accepts for Y (chroma at 1x1),
    /// 4:4:4 through 4:1:0 and 4:4:1 plus odd ones TurboJPEG's API refused.
    static let variants: [String] =
        ["1x1", "2x1", "1x2", "2x2", "4x1", "4x2", "1x4", "3x1", "3x2", "2x4", "1x3"]
        .map { "-sample \($0)" }
        + [
            "-grayscale", "-progressive", "-progressive -sample 4x2", "-arithmetic", "-arithmetic -progressive",
            "-restart 1", "-restart 1B -sample 2x1", "-rgb", "-rgb -progressive", "-quality 100 -sample 1x1",
        ]

    /// A real photo (the corpus's Grace Hopper, 512×600) as PPM, or, without
    /// the corpus, a generated 157×93 image (odd sizes exercise partial MCUs).
    /// Held in memory: a file made once for the process would outlive it.
    static let sourcePPM: [UInt8] = {
        if let corpus = Corpus.directory,
            let photo = try? shell(
                "djpeg -ppm '\(corpus.path)/images/jpeg_baseline_420_photo_grace-hopper.jpg'"),
            !photo.isEmpty
        {
            return photo
        }
        let (width, height) = (157, 93)
        var bytes = Array("P6\n\(width) \(height)\n255\n".utf8)
        var random = SplitMix(seed: 12)
        for y in 0..<height {
            for x in 0..<width {
                let noise = Int(random.next() % 32)
                bytes += [
                    UInt8((x * 255 / width + noise) % 256), UInt8((y * 255 / height) % 256),
                    UInt8((x * y + noise) % 256),
                ]
            }
        }
        return bytes
    }()

    /// The JPEG `cjpeg` makes from the source with `options`, in `directory`
    /// (the test's own, removed with it: tests with the same options run in parallel).
    static func jpeg(_ options: String, in directory: TemporaryDirectory) throws -> URL {
        let source = URL(fileURLWithPath: "\(directory.path)/source.ppm")
        try Data(sourcePPM).write(to: source)
        let url = URL(fileURLWithPath: "\(directory.path)/\(options.replacingOccurrences(of: " ", with: "_")).jpg")
        _ = try shell("cjpeg \(options) '\(source.path)' > '\(url.path)'")
        return url
    }

    @Test(arguments: variants)
    func decodesEqualToDjpeg(options: String) throws {
        let work = try TemporaryDirectory()
        let file = try Self.jpeg(options, in: work)
        let truth = try NetpbmImage(Self.shell("djpeg -rgb -ppm '\(file.path)'"))
        let image = try ImageDecoder().decode([UInt8](Data(contentsOf: file)), frame: nil)
        #expect(image.width == truth.width && image.height == truth.height)
        #expect(truth.matches(image.frames[0].pixels), "\(options): pixels differ from djpeg's")
    }

    @Test(arguments: ["-sample 2x2", "-sample 4x2", "-progressive -sample 1x4", "-grayscale"])
    func scaledDecodesEqualDjpegScale(options: String) throws {
        let work = try TemporaryDirectory()
        let file = try Self.jpeg(options, in: work)
        let bytes = try [UInt8](Data(contentsOf: file))
        for eighths in 1...16 {
            let truth = try NetpbmImage(Self.shell("djpeg -rgb -ppm -scale \(eighths)/8 '\(file.path)'"))
            let image = try JPEGDecoder(limits: .default).decode(bytes) { _ in eighths }
            #expect(image.width == truth.width && image.height == truth.height, "\(options) at \(eighths)/8")
            #expect(truth.matches(image.frames[0].pixels), "\(options) at \(eighths)/8: pixels differ from djpeg's")
        }
    }

    @Test(arguments: ["-sample 4x2", "-progressive", "-grayscale", "-rgb"])
    func streamedRowsEqualTheWholeFrame(options: String) throws {
        let work = try TemporaryDirectory()
        let file = try Self.jpeg(options, in: work)
        let bytes = try [UInt8](Data(contentsOf: file))
        let whole = try ImageDecoder().decode(bytes, frame: nil)
        for format in [OutputFormat.Pixels.ppm, .pam] {
            let collected = Collected()
            var writer = NetpbmRowWriter(format: format) { collected.bytes += $0 }
            try ImageDecoder().decode(bytes, channels: writer.channels, into: &writer)
            #expect(collected.bytes == (try encode(whole, as: format)), "\(options) as \(format)")
        }
    }

    static func shell(_ command: String) throws -> [UInt8] { try Shell.output(command) }
}

/// Bytes a test's row writer has received.
final class Collected {
    var bytes: [UInt8] = []
}
