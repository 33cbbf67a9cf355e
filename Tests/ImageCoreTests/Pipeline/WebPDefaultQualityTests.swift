import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Without `--quality`, a WebP is written lossy (75) from a lossy source
/// and lossless from an exact one (the man page's `--quality`).
@Suite(.serialized) struct WebPDefaultQualityTests {
    /// The codings of a WebP's frames: "VP8 " (lossy) or "VP8L" (lossless), per webpinfo.
    static func codings(_ bytes: [UInt8]) throws -> Set<String> {
        let work = try TemporaryDirectory()
        let path = "\(work.path)/out.webp"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let info = String(decoding: try Shell.output("webpinfo '\(path)'"), as: UTF8.self)
        return Set(["VP8 ", "VP8L"].filter { info.contains("Chunk \($0) ") })
    }

    @Test func lossyFramesAreFoundInStillsAndAnimations() throws {
        let work = try TemporaryDirectory()
        _ = try Shell.output(
            "gif2webp -quiet -lossy '\(Fixtures.directory.path)/anim3.gif' -o '\(work.path)/lossy-anim.webp'")
        let lossyAnimation = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(work.path)/lossy-anim.webp")))
        #expect(try Self.codings(lossyAnimation) == ["VP8 "])
        #expect(DefaultQuality.hasLossyFrame(webp: lossyAnimation))
        #expect(DefaultQuality.hasLossyFrame(webp: try Fixtures.bytes("lossy.webp")))
        #expect(!DefaultQuality.hasLossyFrame(webp: try Fixtures.bytes("lossless-alpha.webp")))
        #expect(!DefaultQuality.hasLossyFrame(webp: try Fixtures.bytes("anim3.webp")))
    }

    /// Sizes that run past the end, and every truncation of a lossy animation: no trap, no read past the end.
    @Test func damagedContainersAreWalkedWithinTheirBytes() throws {
        let work = try TemporaryDirectory()
        _ = try Shell.output(
            "gif2webp -quiet -lossy '\(Fixtures.directory.path)/anim3.gif' -o '\(work.path)/a.webp'")
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(work.path)/a.webp")))
        for length in 0..<whole.count { _ = DefaultQuality.hasLossyFrame(webp: Array(whole.prefix(length))) }
        var huge = whole
        huge.replaceSubrange(16..<20, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(!DefaultQuality.hasLossyFrame(webp: huge))
    }

    /// Through the manager: a thumbnail of a lossy WebP or a JPEG is lossy,
    /// of a lossless WebP or a PNG lossless; `quality` still decides when given.
    @Test func aThumbnailFollowsItsSource() async throws {
        let server = try TestHTTPServer()
        for name in ["lossy.webp", "lossless-alpha.webp", "baseline.jpg", "rgba.png"] {
            server.route("/\(name)", .ok(try Fixtures.bytes(name)))
        }
        let cache = try TemporaryDirectory()
        let manager = try ImageManager(configuration: .init(directory: CacheDirectory(root: cache.path)))
        func coding(_ name: String, quality: Int? = nil) async throws -> Set<String> {
            var rendition = ImageRendition()
            rendition.scale = .fit(width: 16, height: 16)
            rendition.encoding = .format(.webp)
            rendition.quality = quality
            var request = ImageRequest(url: server.url("/\(name)"))
            request.render(rendition)
            return try Self.codings(try #require(try await manager.load(request).encoded?.bytes))
        }
        #expect(try await coding("lossy.webp") == ["VP8 "])
        #expect(try await coding("baseline.jpg") == ["VP8 "])
        #expect(try await coding("lossless-alpha.webp") == ["VP8L"])
        #expect(try await coding("rgba.png") == ["VP8L"])
        #expect(try await coding("rgba.png", quality: 80) == ["VP8 "])
    }
}
