import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// JPEG XL through the built binary: `--json`, `--decode` against djxl,
/// thumbnails that stay JPEG XL (and animated), `--encode jxl` of any input,
/// profiles kept in encoded outputs, and bad files refused with one line,
/// exit 5, nothing cached.
@Suite(.serialized, .disabled(if: JXLSamples.missingTools != nil, "\(JXLSamples.missingTools ?? "")"))
struct JXLCommandTests {
    let server: TestHTTPServer
    let cache: TemporaryDirectory

    init() throws {
        server = try TestHTTPServer()
        cache = try TemporaryDirectory()
        for name in [
            "lossy.jxl", "icc.jxl", "icc-lossy.jxl", "animation.jxl", "alpha.jxl", "truncated.jxl",
            "huge-header.jxl", "groups.jxl",
        ] {
            server.route("/\(name)", .ok(try JXLSamples.bytes(name)))
        }
        var corrupt = try JXLSamples.bytes("lossy.jxl")
        for index in stride(from: corrupt.count / 3, to: corrupt.count, by: 97) { corrupt[index] ^= 0xFF }
        server.route("/corrupt.jxl", .ok(corrupt))
        server.route("/tiny.png", .ok(Fixtures.tinyPNG))
    }

    func fetch(_ arguments: String...) throws -> CLI.Result {
        try CLI.run(["fetch"] + arguments, cacheDir: cache.path)
    }

    @Test func jsonNamesTheFormatFramesAndProfile() throws {
        let animation = try fetch("--json", server.url("/animation.jxl")).stdoutText
        #expect(animation.contains(#""format":"jxl""#) && animation.contains(#""frames":3"#), "\(animation)")
        let icc = try fetch("--json", server.url("/icc-lossy.jxl")).stdoutText
        #expect(icc.contains(#""icc":"Compatible with Adobe RGB (1998)""#), "\(icc)")
        #expect(icc.contains(#""width":200"#) && icc.contains(#""height":150"#), "\(icc)")
    }

    @Test func decodeEqualsDjxl() throws {
        let still = try fetch("--decode", "pam", server.url("/groups.jxl"))
        #expect(still.status == 0, "\(still.stderr)")
        #expect(
            NetpbmStream.close(try NetpbmImage(still.stdout).rgba, try JXLSamples.reference("groups.jxl"), tolerance: 0)
        )
        // An ICC profile: the stored values with --colorspace original, converted by default.
        let original = try fetch("--decode", "ppm", "--colorspace", "original", server.url("/icc.jxl"))
        #expect(
            try NetpbmImage(original.stdout).samples
                == (try JXLSamples.reference("icc.jxl")).samples.enumerated().filter { $0.offset % 4 != 3 }.map(
                    \.element))
        let converted = try fetch("--decode", "ppm", server.url("/icc.jxl"))
        #expect(converted.status == 0 && converted.stdout != original.stdout)
        let frames = try NetpbmStream.images(try fetch("--decode", "pam", server.url("/animation.jxl")).stdout)
        #expect(frames.count == 3)
    }

    @Test func thumbnailsStayJPEGXLAndAnimated() throws {
        let still = try fetch("--thumbnail", "50x50", server.url("/groups.jxl"))
        #expect(still.status == 0, "\(still.stderr)")
        let info = try ImageDecoder().inspect(still.stdout)
        #expect(info.format == .jxl && (info.width, info.height) == (50, 43))
        let animated = try ImageDecoder().decode(
            try fetch("--thumbnail", "16x16", server.url("/animation.jxl")).stdout, frame: nil)
        #expect(animated.format == .jxl && animated.frames.count == 3 && animated.loopCount == 0)
        #expect(animated.frames.map(\.durationMilliseconds) == [100, 250, 400])
        #expect((animated.width, animated.height) == (16, 12))
        let one = try ImageDecoder().inspect(
            try fetch("--thumbnail", "16x16", "--frame", "1", server.url("/animation.jxl")).stdout)
        #expect(one.format == .jxl && one.frameCount == 1)
        let png = try ImageDecoder().inspect(
            try fetch("--thumbnail", "16x16", "--encode", "png", server.url("/alpha.jxl")).stdout)
        #expect(png.format == .png)
        // djxl reads what libjxl's encoder wrote for us.
        let file = "\(cache.path)/thumb.jxl"
        try Data(still.stdout).write(to: URL(fileURLWithPath: file))
        _ = try Shell.output("djxl '\(file)' '\(cache.path)/thumb.png' >/dev/null 2>&1")
    }

    @Test func encodeJXLOfAnyInput() throws {
        let lossless = try fetch("--encode", "jxl", "--quality", "100", server.url("/tiny.png"))
        #expect(lossless.status == 0, "\(lossless.stderr)")
        let decoded = try ImageDecoder().decode(lossless.stdout, frame: nil)
        #expect(decoded.format == .jxl && decoded.frames[0].pixels == Fixtures.tinyPNGPixels)
        let alpha = try ImageDecoder(colourSpace: .original).decode(try JXLSamples.bytes("alpha.jxl"), frame: nil)
        let again = try ImageDecoder().decode(
            try fetch("--encode", "jxl", "--quality", "100", server.url("/alpha.jxl")).stdout, frame: nil)
        #expect(again.frames[0].pixels == alpha.frames[0].pixels)
        let lossy = try fetch("--encode", "jxl", server.url("/tiny.png"))
        #expect(try ImageDecoder().inspect(lossy.stdout).format == .jxl)
    }

    /// The profile travels byte for byte: into a JPEG XL thumbnail, and into a PNG.
    @Test func profileIsKeptInEncodedOutputs() throws {
        let adobe = try ProfiledImages.bytes(ProfiledImages.adobeRGB)
        let thumbnail = try fetch("--thumbnail", "40x40", server.url("/icc.jxl")).stdout
        #expect(JXLColour.read(thumbnail, target: .declared).profile?.icc == adobe)
        let png = try fetch("--encode", "png", server.url("/icc.jxl")).stdout
        #expect(EmbeddedProfile.read(png, format: .png).profile?.icc == adobe)
    }

    @Test(arguments: ["truncated.jxl", "corrupt.jxl", "huge-header.jxl"])
    func badFilesAreExit5WithOneLineAndNeverCached(name: String) throws {
        let url = server.url("/\(name)")
        let result = try fetch(url)
        #expect(result.status == 5, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("imgcache: \(url): "), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        if name == "huge-header.jxl" { #expect(result.stderr.contains("image too large"), "\(result.stderr)") }
        #expect(try CLI.run(["stat", "-q", url], cacheDir: cache.path).status == 7)
    }
}
