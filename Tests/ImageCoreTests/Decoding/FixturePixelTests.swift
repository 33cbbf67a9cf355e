import TestSupport
import Testing

@testable import ImageCore

/// The project's own fixtures, one per decoder path, against the reference
/// decoders' output: these run even where the shared corpus is absent.
struct FixturePixelTests {
    @Test func everyFixtureWithAReferenceDecodesToTheSamePixels() throws {
        let files = try Fixtures.all().filter { $0.truth != nil }
        #expect(files.count >= 9)
        for file in files {
            let truth = try #require(file.truth)
            let image = try ImageDecoder().decode(file.bytes, frame: nil)
            #expect(image.width == truth.width && image.height == truth.height, "\(file.name)")
            #expect(truth.matches(image.frames[0].pixels), "\(file.name)")
        }
    }

    @Test func animatedFixturesHaveEveryFrameAndTiming() throws {
        let files = try Fixtures.all()
        let gif = try ImageDecoder().decode(try #require(files.first { $0.name == "anim3.gif" }).bytes, frame: nil)
        #expect(gif.frames.count == 3)
        #expect(gif.frames.map(\.durationMilliseconds) == [80, 80, 80])
        #expect(gif.loopCount == 0)
        // Disposal 2 clears each frame before the next, so a transparent
        // (black in the source) pixel of frame 1 shows the empty canvas.
        #expect(gif.frames[1].pixels[3] == 0 || gif.frames[1].pixels[3] == 255)
        let webp = try ImageDecoder().decode(try #require(files.first { $0.name == "anim3.webp" }).bytes, frame: nil)
        #expect(webp.frames.count == 3)
        #expect(webp.frames.map(\.durationMilliseconds) == [80, 120, 120])
        let info = try ImageDecoder().inspect(try #require(files.first { $0.name == "anim3.webp" }).bytes)
        #expect(info.frameCount == 3 && info.loopCount == 0)
    }

    @Test func encodersWriteWhatNetpbmAndLibpngRead() throws {
        let image = try ImageDecoder().decode(Fixtures.tinyPNG, frame: nil)
        #expect(image.frames[0].pixels == Fixtures.tinyPNGPixels)
        let pam = try NetpbmImage(encode(image, as: .pam))
        #expect(pam.depth == 4 && pam.samples == Fixtures.tinyPNGPixels)
        let ppm = try NetpbmImage(encode(image, as: .ppm))
        #expect(ppm.depth == 3 && ppm.rgba == Fixtures.tinyPNGPixels)
        let png = try encode(image, as: .png)
        #expect(try ImageDecoder().decode(png, frame: nil).frames[0].pixels == Fixtures.tinyPNGPixels)
    }
}
