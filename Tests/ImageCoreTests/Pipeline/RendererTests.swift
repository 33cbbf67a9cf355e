import Foundation
import Testing

@testable import ImageCore

/// `Renderer` alone, with the real decoder and encoders over a real cache
/// directory: what it decodes, encodes and keeps as a variant, and what it
/// leaves alone.
@Suite struct RendererTests {
    let url = "http://127.0.0.1/a.png"

    /// An 8×8 PNG, stored as the entry for `url`, as the response `load` hands the renderer.
    func storedResponse(_ fixture: PipelineFixture, _ request: ImageRequest) throws -> ImageResponse {
        var pixels: [UInt8] = []
        for index in 0..<64 { pixels += [UInt8(index * 4), 0, 255 - UInt8(index * 4), 255] }
        let png = try PNGEncoder.encode(pixels, width: 8, height: 8)
        let stored = try fixture.storeEntry(url, bytes: png)
        return ImageResponse(disk: stored, request, CacheKey(url))
    }

    func renderer(_ fixture: PipelineFixture) -> Renderer {
        Renderer(disk: fixture.disk, decoder: ImageDecoder(), limits: .default, events: .silent)
    }

    @Test func aResponseAskedForNothingMoreIsHandedOnAsItIs() async throws {
        let fixture = try PipelineFixture()
        let request = ImageRequest(url: url)
        let response = try storedResponse(fixture, request)
        let rendition = try await renderer(fixture).render(response, request)
        #expect(!rendition.decoded && !rendition.fromStoredVariant)
        #expect(rendition.response.image == nil && rendition.response.encoded == nil)
        #expect(rendition.response.bytes == response.bytes)
    }

    @Test func pixelsAreDecodedAtTheSizeAsked() async throws {
        let fixture = try PipelineFixture()
        var request = ImageRequest(url: url)
        request.decodesPixels = true
        let full = try await renderer(fixture).render(try storedResponse(fixture, request), request)
        #expect(full.decoded && full.response.image?.width == 8 && full.response.image?.height == 8)
        request.scale = .fit(width: 4, height: 4)
        let scaled = try await renderer(fixture).render(full.response, request)
        #expect(scaled.decoded && scaled.response.image?.width == 4, "a size asked decodes again")
    }

    @Test func aThumbnailIsEncodedKeptAsAVariantAndThenServedFromIt() async throws {
        let fixture = try PipelineFixture()
        var request = ImageRequest(url: url)
        request.scale = .fit(width: 4, height: 4)
        request.encoding = .format(.png)
        request.variantName = "thumbnail-test"
        let response = try storedResponse(fixture, request)
        let first = try await renderer(fixture).render(response, request)
        let encoded = try #require(first.response.encoded)
        #expect(encoded.format == .png && !first.fromStoredVariant)
        let thumbnail = try ImageDecoder().decode(encoded.bytes, frame: nil)
        #expect(thumbnail.width == 4 && thumbnail.height == 4)
        let entry = try #require(try fixture.disk.lookup(CacheKey(url))?.entry)
        #expect(
            fixture.disk.variants.bytes(of: entry, key: CacheKey(url), transform: "thumbnail-test") == encoded.bytes)

        let again = try await renderer(fixture).render(
            ImageResponse(disk: try #require(try fixture.disk.lookup(CacheKey(url))), request, CacheKey(url)), request)
        #expect(again.fromStoredVariant && !again.decoded)
        #expect(again.response.encoded?.bytes == encoded.bytes)
    }

    @Test func aRequestThatStoresNothingKeepsNoVariant() async throws {
        let fixture = try PipelineFixture()
        var request = ImageRequest(url: url)
        request.encoding = .format(.png)
        request.variantName = "not-kept"
        request.storesToDisk = false
        let rendition = try await renderer(fixture).render(try storedResponse(fixture, request), request)
        #expect(rendition.response.encoded != nil)
        let entry = try #require(try fixture.disk.lookup(CacheKey(url))?.entry)
        #expect(fixture.disk.variants.bytes(of: entry, key: CacheKey(url), transform: "not-kept") == nil)
    }
}
