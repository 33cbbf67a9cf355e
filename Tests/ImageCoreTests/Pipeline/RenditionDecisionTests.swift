import Foundation
import ImageCore
import TestSupport
import Testing

/// Issue 35, class 6: what `ImageRendition` names a variant by (orientation,
/// colour space) is what its pixels are, whatever the manager's decoder
/// would choose: through the library's public API only (no `@testable`),
/// as a library caller uses it.
@Suite(.serialized) struct RenditionDecisionTests {
    let server: TestHTTPServer
    let cache: TemporaryDirectory
    /// A 24×16 WebP whose EXIF says orientation 8: upright it is 16×24.
    let turned: [UInt8]

    init() throws {
        let work = try TemporaryDirectory()
        let tiff: [UInt8] = [
            0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0,
        ]
        try Data(tiff).write(to: URL(fileURLWithPath: "\(work.path)/o.exif"))
        let source = Fixtures.directory.appendingPathComponent("lossy.webp").path
        _ = try Shell.output("webpmux -set exif '\(work.path)/o.exif' '\(source)' -o '\(work.path)/o.webp' 2>&1")
        turned = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(work.path)/o.webp")))
        server = try TestHTTPServer()
        server.route("/o.webp", .ok(turned))
        cache = try TemporaryDirectory()
    }

    /// A manager whose decoder turns pixels upright and leaves colours as stored.
    func manager() throws -> ImageManager {
        try ImageManager(
            configuration: .init(directory: CacheDirectory(root: cache.path)),
            decoder: ImageDecoder(appliesOrientation: true, colourSpace: .original))
    }

    /// The size of the PNG thumbnail `rendition` makes (a fit larger than the image: full size).
    func thumbnailSize(_ manager: ImageManager, orient: Bool) async throws -> (width: Int, height: Int) {
        var rendition = ImageRendition()
        rendition.scale = .fit(width: 100, height: 100)
        rendition.encoding = .format(.png)
        rendition.appliesOrientation = orient
        var request = ImageRequest(url: server.url("/o.webp"))
        request.render(rendition)
        #expect(request.variantName?.contains("orient=\(orient ? 1 : 0)") == true)
        let response = try await manager.load(request)
        let bytes = try #require(response.encoded?.bytes)
        let image = try ImageDecoder(appliesOrientation: false).decode(bytes, frame: nil)
        return (image.width, image.height)
    }

    @Test func aThumbnailNamedOrient0IsStoredInStoredOrder() async throws {
        let manager = try manager()
        #expect(try await thumbnailSize(manager, orient: false) == (24, 16))
        #expect(try await thumbnailSize(manager, orient: true) == (16, 24))
        // Kept variants, read back by a second manager: each name holds its own pixels.
        let other = try self.manager()
        #expect(try await thumbnailSize(other, orient: false) == (24, 16))
        #expect(try await thumbnailSize(other, orient: true) == (16, 24))
        #expect(server.requestCount == 1)
    }

    @Test func decodedPixelsFollowTheRenditionNotTheDecoder() async throws {
        let manager = try manager()
        var rendition = ImageRendition()
        rendition.decodesPixels = true
        for orient in [true, false, true] {
            rendition.appliesOrientation = orient
            var request = ImageRequest(url: server.url("/o.webp"))
            request.render(rendition)
            let image = try #require(try await manager.load(request).image)
            #expect((image.width, image.height) == (orient ? (16, 24) : (24, 16)), "orient \(orient)")
        }
    }

    /// `writePixels` (`fetch --decode ppm|pam`, streamed) decodes as the
    /// request asks, not as the manager's decoder would: orientation and
    /// colour space, against the manager's own full decode for each.
    @Test func streamedPixelsFollowTheRequestNotTheDecoder() async throws {
        let manager = try manager()
        for orient in [false, true] {
            var rendition = ImageRendition()
            rendition.appliesOrientation = orient
            rendition.colourSpace = .srgb
            var request = ImageRequest(url: server.url("/o.webp"))
            request.render(rendition)
            let response = try await manager.load(request)
            let streamed = Collected()
            try manager.writePixels(of: response, for: request, as: .pam) { streamed.bytes += $0 }
            let pam = try NetpbmImage(streamed.bytes)
            #expect((pam.width, pam.height) == (orient ? (16, 24) : (24, 16)), "orient \(orient)")
            let whole = try ImageDecoder(appliesOrientation: orient, colourSpace: .srgb).decode(turned, frame: nil)
            let same = pam.samples == whole.frames[0].pixels
            #expect(same, "orient \(orient): not the request's pixels")
        }
    }
}
