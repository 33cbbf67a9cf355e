import Foundation
import Testing
@testable import ImageCore

/// `fetch --decode ppm|pam` of a still image goes from the decoder to the
/// output row by row; what comes out must be exactly what the whole-image
/// path writes, to stdout and to files, and images that cannot stream
/// row by row (EXIF orientation) still come out whole and upright, and an
/// animation is written frame by frame.
@Suite(.serialized) struct StreamedDecodeTests {
    let server: TestHTTPServer
    let cache: TemporaryDirectory

    init() throws {
        server = try TestHTTPServer()
        cache = try TemporaryDirectory()
    }

    func fetch(_ arguments: String...) throws -> CLI.Result {
        try CLI.run(["fetch"] + arguments, cacheDir: cache.path)
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

    @Test func animationsStillWriteEveryFrame() throws {
        let gif = try Fixtures.bytes("anim3.gif")
        server.route("/a.gif", .ok(gif))
        let pam = try fetch("--decode", "pam", server.url("/a.gif"))
        #expect(pam.status == 0, "\(pam.stderr)")
        #expect(pam.stdout == (try encode(ImageDecoder().decode(gif, frame: nil), as: .pam)))
        let ppm = try fetch("--offline", "--decode", "ppm", server.url("/a.gif"))
        #expect(ppm.stdout == (try encode(ImageDecoder().decode(gif, frame: nil), as: .ppm)))
    }

    @Test(.enabled(if: Corpus.directory != nil)) func orientedJPEGsComeOutUpright() throws {
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
