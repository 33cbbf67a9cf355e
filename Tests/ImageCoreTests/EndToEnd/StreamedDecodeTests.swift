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
}
