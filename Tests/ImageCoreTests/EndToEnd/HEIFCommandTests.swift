import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// HEIC through the built binary: `--json` facts, thumbnails and `--encode`
/// defaulting to JPEG with the profile kept, pixels equal to heif-convert's,
/// the colour path, libheif loaded only by a decode, and broken files
/// refused with exit 5 and never cached.
@Suite(.serialized, .enabled(if: HEIFSamples.toolsPresent, "needs heif-enc and heif-convert (libheif-examples)"))
struct HEIFCommandTests: CommandSuite {
    let fixture: CommandFixture
    let work: TemporaryDirectory

    init() throws {
        fixture = try CommandFixture()
        work = try TemporaryDirectory()
    }

    @Test func jsonThumbnailAndPixels() throws {
        let heic = try HEIFSamples.make(.alpha, in: work)
        server.route("/a.heic", .ok(heic))
        let json = try fetch("--json", server.url("/a.heic"))
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdoutText.contains(#""format":"heif","width":16,"height":10,"frames":1"#), "\(json.stdoutText)")
        // Thumbnails default to JPEG: HEVC encoding is not ours to ship.
        let thumbnail = try fetch("--thumbnail", "8x8", server.url("/a.heic"))
        #expect(thumbnail.status == 0, "\(thumbnail.stderr)")
        #expect(ImageFormat.sniff(thumbnail.stdout) == .supported(.jpeg))
        let encoded = try fetch("--encode", "png", server.url("/a.heic"))
        #expect(ImageFormat.sniff(encoded.stdout) == .supported(.png))
        let pam = try fetch("--decode", "pam", server.url("/a.heic"))
        #expect(pam.status == 0)
        #expect(try HEIFSamples.reference(heic, in: work).matches(NetpbmImage(pam.stdout).samples))
    }

    @Test func aWarmHitLoadsNoLibheifAndADecodeDoes() throws {
        server.route("/w.heic", .ok(try HEIFSamples.make(.lossy, in: work)))
        let cold = try run(["fetch", server.url("/w.heic")], environment: ["LD_DEBUG": "libs"])
        #expect(cold.status == 0)
        // The check before storing parses the file.
        #expect(cold.stderr.contains("libheif.so.1"), "LD_DEBUG=libs reports what the loader loads")
        let warm = try run(["fetch", server.url("/w.heic")], environment: ["LD_DEBUG": "libs"])
        #expect(warm.status == 0 && !warm.stderr.contains("libheif"))
        let decoded = try run(["fetch", "--decode", "ppm", server.url("/w.heic")], environment: ["LD_DEBUG": "libs"])
        #expect(decoded.status == 0 && decoded.stderr.contains("libheif.so.1"))
    }

    @Test(.enabled(if: Corpus.directory != nil, "../shared/corpus is not present"))
    func theProfileGoesThroughTheColourPath() throws {
        let profiled = try ProfiledImages.png(profile: ProfiledImages.adobeRGB, in: work)
        let png = "\(work.path)/adobe.png"
        try Data(profiled).write(to: URL(fileURLWithPath: png))
        let heic = try HEIFSamples.encode(png, options: "-q 80", in: work)
        server.route("/p.heic", .ok(heic))
        let json = try fetch("--json", server.url("/p.heic"))
        #expect(json.stdoutText.contains(#""icc":"Compatible with Adobe RGB (1998)""#), "\(json.stdoutText)")
        // As stored: heif-convert's values; converted: Little CMS's tificc from them.
        let stored = try fetch("--decode", "ppm", "--colorspace", "original", server.url("/p.heic"))
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(try HEIFSamples.reference(heic, in: work).matches(NetpbmImage(stored.stdout).rgba))
        let reference = try ProfiledImages.tificc(stored.stdout, profile: ProfiledImages.adobeRGB, in: work)
        let converted = try fetch("--decode", "ppm", server.url("/p.heic"))
        #expect(ProfiledImages.closeShare(try NetpbmImage(converted.stdout), reference, tolerance: 2) >= 0.99)
        // The JPEG thumbnail keeps the profile byte for byte.
        let thumbnail = try fetch("--thumbnail", "100x100", server.url("/p.heic"))
        #expect(
            ProfiledImages.jpegProfile(thumbnail.stdout).profile == (try ProfiledImages.bytes(ProfiledImages.adobeRGB)))
    }

    @Test func brokenFilesAreRefusedAndNeverCached() throws {
        let heic = try HEIFSamples.make(.lossy, in: work)
        server.route("/huge.heic", .ok(HEIFSamples.claimingSize(heic, width: 50_000, height: 50_000)))
        server.route("/cut.heic", .ok(Array(heic.prefix(heic.count * 2 / 3))))
        for (path, says) in [("/huge.heic", "image too large: 50000×50000"), ("/cut.heic", "corrupt HEIF: truncated")] {
            let result = try fetch(server.url(path))
            #expect(result.status == 5, "\(path): \(result.stderr)")
            #expect(result.stderr.contains(server.url(path)) && result.stderr.contains(says), "\(result.stderr)")
            let offline = try fetch("--offline", server.url(path))
            #expect(offline.status != 0 && offline.stdout.isEmpty, "\(path) was cached")
        }
    }
}
