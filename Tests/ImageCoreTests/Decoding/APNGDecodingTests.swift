import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// APNG fixtures (written chunk by chunk by the fixture script) against
/// ffmpeg's apng decoder, which composites as the specification says; and
/// the structure checks.
struct APNGDecodingTests {
    @Test(arguments: ["apng-ops.png", "apng-hidden-default.png", "apng-palette.png"])
    func compositesLikeTheSpecification(name: String) throws {
        let truth = try NetpbmStream.images(Fixtures.bytes(name.replacingOccurrences(of: ".png", with: ".truth.pam")))
        let image = try ImageDecoder().decode(Fixtures.bytes(name), frame: nil)
        #expect(image.format == .png)
        #expect(image.frames.count == truth.count)
        for (index, (frame, reference)) in zip(image.frames, truth).enumerated() {
            #expect((image.width, image.height) == (reference.width, reference.height))
            // ±1 where alpha blending rounds.
            #expect(NetpbmStream.close(frame.pixels, reference, tolerance: 1), "\(name) frame \(index)")
        }
    }

    @Test func reportsFramesDurationsAndLoops() throws {
        let bytes = try Fixtures.bytes("apng-ops.png")
        let info = try ImageDecoder().inspect(bytes)
        #expect(info.format == .png && info.frameCount == 6 && info.loopCount == 3)
        let image = try ImageDecoder().decode(bytes, frame: nil)
        #expect(image.frames.map(\.durationMilliseconds) == [100, 50, 200, 70, 30, 40])
        #expect(image.loopCount == 3)
        // The default image outside the animation is not a frame.
        let hidden = try ImageDecoder().inspect(Fixtures.bytes("apng-hidden-default.png"))
        #expect(hidden.frameCount == 2 && hidden.loopCount == 0)
        // A PNG without acTL is a still, as before.
        #expect(try ImageDecoder().inspect(Fixtures.tinyPNG).frameCount == 1)
    }

    @Test(arguments: [
        ("apng-outside-canvas.png", "lies outside the 8×6 canvas"),
        ("apng-bad-sequence.png", "sequence number 2 where 1 was expected"),
        ("apng-fdat-before-fctl.png", "fdAT before any fcTL"),
        ("apng-missing-frames.png", "acTL promises 3 frames, the file has 1"),
    ])
    func malformedAnimationsAreRefused(name: String, message: String) throws {
        let bytes = try Fixtures.bytes("malformed/\(name)")
        for attempt in [
            { _ = try ImageDecoder().inspect(bytes) }, { _ = try ImageDecoder().decode(bytes, frame: nil) },
        ] {
            do {
                try attempt()
                Issue.record("\(name) was accepted")
            } catch let error as ImageCoreError {
                #expect(error.kind == .image)
                #expect(error.message.contains(message), "\(name): \(error.message)")
            }
        }
    }

    @Test func aDamagedFrameFailsTheDecodeToo() throws {
        var bytes = try Fixtures.bytes("apng-ops.png")
        let fdAT = try #require(bytes.firstRange(of: Array("fdAT".utf8)))
        bytes[fdAT.upperBound + 6] ^= 0x40
        #expect(throws: ImageCoreError.self) { try ImageDecoder().decode(bytes, frame: nil) }
    }

    @Test func everyTruncationFailsTheCheckBeforeStoring() throws {
        for name in ["apng-ops.png", "apng-hidden-default.png", "apng-palette.png"] {
            let bytes = try Fixtures.bytes(name)
            for length in 0..<bytes.count {
                #expect(throws: ImageCoreError.self, "\(name) cut at \(length)") {
                    try ImageDecoder().inspect(Array(bytes.prefix(length)))
                }
            }
        }
    }

    @Test func totalPixelLimitCountsEveryFrame() throws {
        let bytes = try Fixtures.bytes("apng-ops.png")  // 6 frames of 8×6
        var limits = DecodingLimits(maxPixels: 48, maxFrames: 6, maxTotalPixels: 288, maxJPEGScans: 1)
        #expect(try ImageDecoder(limits: limits).decode(bytes, frame: nil).frames.count == 6)
        limits.maxTotalPixels = 287
        #expect(throws: ImageCoreError.self) { try ImageDecoder(limits: limits).inspect(bytes) }
    }
}
