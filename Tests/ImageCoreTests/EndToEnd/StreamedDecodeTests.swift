import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// `fetch --decode ppm|pam` of a still image goes from the decoder to the
/// output row by row; what comes out must be exactly what the whole-image
/// path writes, to stdout and to files, and images that cannot stream
/// row by row (EXIF orientation) still come out whole and upright, and an
/// animation is written frame by frame.
@Suite(.serialized) struct StreamedDecodeTests: CommandSuite {
    let fixture: CommandFixture

    init() throws {
        fixture = try CommandFixture()
    }

    @Test func streamedJPEGEqualsDjpegToStdoutAndFiles() throws {
        let jpeg = try Fixtures.bytes("progressive.jpg")
        server.route("/p.jpg", .ok(jpeg))
        let ppm = try fetch("--decode", "ppm", server.url("/p.jpg"))
        #expect(ppm.status == 0, "\(ppm.stderr)")
        #expect(ppm.stdout == (try Fixtures.bytes("progressive.truth.ppm")))
        let output = try TemporaryDirectory()
        let written = try fetch("--offline", "--decode", "pam", "-o", "\(output.path)/p.pam", server.url("/p.jpg"))
        #expect(written.status == 0 && written.stdout.isEmpty)
        let whole = try encode(ImageDecoder().decode(jpeg, frame: nil), as: .pam)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(output.path)/p.pam"))) == whole)
        let listing = try FileManager.default.contentsOfDirectory(atPath: output.path)
        #expect(listing == ["p.pam"], "no temporary file is left beside the output")
    }

    /// Every fixture and corpus image, streamed as PPM and as PAM, equals
    /// its whole-image encoding byte for byte.
    @Test func streamedOutputEqualsTheWholeImage() throws {
        var images = try Fixtures.all().filter { !$0.name.contains(".truth.") && $0.name != "make-fixtures.sh" }
            .map { ($0.name, $0.bytes) }
        for row in Corpus.manifest("MANIFEST.tsv") where Int(row["width"] ?? "") ?? 0 <= 1000 {
            if let file = row["file"], let bytes = try? Corpus.bytes("images/\(file)") { images.append((file, bytes)) }
        }
        for (name, bytes) in images {
            guard let whole = try? ImageDecoder().decode(bytes, frame: nil) else { continue }
            for format in [OutputFormat.Pixels.ppm, .pam] {
                let collected = Collected()
                var writer = NetpbmRowWriter(format: format) { collected.bytes += $0 }
                try ImageDecoder().decode(bytes, channels: writer.channels, into: &writer)
                #expect(collected.bytes == (try encode(whole, as: format)), "\(name) as \(format)")
            }
        }
    }

    @Test func animationsStillWriteEveryFrame() throws {
        let gif = try Fixtures.bytes("anim3.gif")
        server.route("/a.gif", .ok(gif))
        let pam = try fetch("--decode", "pam", server.url("/a.gif"))
        #expect(pam.status == 0, "\(pam.stderr)")
        #expect(pam.stdout == (try encode(ImageDecoder().decode(gif, frame: nil), as: .pam)))
        let ppm = try fetch("--offline", "--decode", "ppm", server.url("/a.gif"))
        #expect(ppm.stdout == (try encode(ImageDecoder().decode(gif, frame: nil), as: .ppm)))
    }

    @Test(.enabled(if: Corpus.directory != nil, Corpus.missing)) func orientedJPEGsComeOutUpright() throws {
        let jpeg = try Corpus.bytes("images/jpeg_exif-orientation6_photo_gdk-testrotate.jpg")
        server.route("/o.jpg", .ok(jpeg))
        let ppm = try fetch("--decode", "ppm", server.url("/o.jpg"))
        #expect(ppm.status == 0, "\(ppm.stderr)")
        let oriented = try NetpbmImage(Corpus.bytes("truth/jpeg_exif-orientation6_photo_gdk-testrotate.oriented.ppm"))
        let mine = try NetpbmImage(ppm.stdout)
        #expect(mine.width == oriented.width && mine.samples == oriented.samples)
        let stored = try fetch("--decode", "ppm", "--no-orient", server.url("/o.jpg"))
        let truth = try NetpbmImage(Corpus.bytes("truth/jpeg_exif-orientation6_photo_gdk-testrotate.ppm"))
        #expect(try NetpbmImage(stored.stdout).samples == truth.samples)
    }

    /// Streamed pixels are oriented and converted as the command line asks
    /// (`--no-orient`, `--colorspace`), whatever the manager's decoder does:
    /// a JPEG with an Adobe RGB profile and EXIF orientation 6, against
    /// djpeg (as stored), pamflip (upright) and Little CMS's tificc (sRGB).
    @Test(.enabled(if: Corpus.directory != nil, Corpus.missing)) func streamedPixelsAreOrientedAndConvertedAsAsked()
        throws
    {
        let work = try TemporaryDirectory()
        let profiled = try ProfiledImages.jpeg(profile: ProfiledImages.adobeRGB, in: work)
        // APP1 Exif after SOI: a big-endian TIFF with one entry, Orientation (0x0112) = 6.
        let tiff: [UInt8] = [
            0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0,
        ]
        let exif = Array("Exif".utf8) + [0, 0] + tiff
        let length = exif.count + 2
        let jpeg = [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + exif + profiled[2...]
        let path = "\(work.path)/turned.jpg"
        try Data(jpeg).write(to: URL(fileURLWithPath: path))
        server.route("/t.jpg", .ok(jpeg))
        let url = server.url("/t.jpg")

        let stored = try fetch("--decode", "ppm", "--no-orient", "--colorspace", "original", url)
        #expect(stored.status == 0, "\(stored.stderr)")
        let djpeg = try Shell.output("djpeg -ppm '\(path)'")
        #expect(try NetpbmImage(stored.stdout).samples == NetpbmImage(djpeg).samples, "as stored: djpeg's")

        let upright = try fetch("--offline", "--decode", "ppm", "--colorspace", "original", url)
        let turned = try NetpbmImage(Shell.output("djpeg -ppm '\(path)' | pamflip -cw"))
        let uprightImage = try NetpbmImage(upright.stdout)
        #expect((uprightImage.width, uprightImage.height) == (turned.width, turned.height))
        #expect(uprightImage.samples == turned.samples, "upright: pamflip -cw of djpeg's")

        let converted = try fetch("--offline", "--decode", "pam", url)
        let reference = try ProfiledImages.tificc(upright.stdout, profile: ProfiledImages.adobeRGB, in: work)
        let share = ProfiledImages.closeShare(try NetpbmImage(converted.stdout), reference, tolerance: 2)
        #expect(share >= 0.99, "sRGB and upright: \(share) of pixels within ±2 of tificc")
    }
}
