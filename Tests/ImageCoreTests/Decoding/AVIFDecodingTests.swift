import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// AVIF fixtures (made by avifenc) against avifdec's 8-bit output, frame for
/// frame; the container checks that keep broken files out of the cache.
struct AVIFDecodingTests {
    static let names = [
        "avif-still.avif", "avif-alpha.avif", "avif-10bit.avif", "avif-irot.avif", "avif-sequence.avif",
    ]

    @Test(arguments: names)
    func decodesLikeAvifdec(name: String) throws {
        let truth = try NetpbmStream.images(Fixtures.bytes(name.replacingOccurrences(of: ".avif", with: ".truth.pam")))
        let image = try ImageDecoder().decode(Fixtures.bytes(name), frame: nil)
        #expect(image.format == .avif)
        #expect(image.frames.count == truth.count)
        for (frame, reference) in zip(image.frames, truth) {
            #expect((image.width, image.height) == (reference.width, reference.height))
            #expect(frame.pixels == reference.rgba, "\(name)")
        }
    }

    @Test func sequenceKeepsItsTimingAndLoops() throws {
        let bytes = try Fixtures.bytes("avif-sequence.avif")
        let info = try ImageDecoder().inspect(bytes)
        #expect(info.format == .avif && info.frameCount == 3 && info.loopCount == 0)
        let image = try ImageDecoder().decode(bytes, frame: nil)
        #expect(image.frames.map(\.durationMilliseconds) == [100, 250, 250])
        #expect(try ImageDecoder().decode(bytes, frame: 2).frames[0].pixels == image.frames[2].pixels)
        let still = try ImageDecoder().inspect(Fixtures.bytes("avif-still.avif"))
        #expect(still.frameCount == 1 && still.loopCount == nil)
    }

    @Test func irotAndImirBecomeAnOrientation() throws {
        let bytes = try Fixtures.bytes("avif-irot.avif")
        // A quarter turn anticlockwise, then left and right swapped: EXIF 7.
        #expect(try ImageDecoder().inspect(bytes).orientation == 7)
        let stored = try ImageDecoder(appliesOrientation: false).decode(bytes, frame: nil)
        #expect((stored.width, stored.height) == (12, 8))
        let upright = try ImageDecoder().decode(bytes, frame: nil)
        #expect((upright.width, upright.height) == (8, 12))
        let scaled = try ImageDecoder().decode(bytes, frame: nil, scale: .fit(width: 4, height: 100))
        #expect((scaled.width, scaled.height) == (4, 6))
    }

    @Test func hugeIspeIsRefusedBeforeAnyPixelBuffer() throws {
        let bytes = try Fixtures.bytes("malformed/huge-ispe.avif")
        #expect(throws: ImageCoreError.self) { try ImageDecoder().inspect(bytes) }
        do {
            _ = try ImageDecoder().decode(bytes, frame: nil)
            Issue.record("a 100000×100000 AVIF decoded")
        } catch let error as ImageCoreError {
            #expect(error.kind == .image)
            #expect(error.message.contains("100000"), "\(error.message)")
        }
    }

    @Test func limitsApplyToSequences() throws {
        let bytes = try Fixtures.bytes("avif-sequence.avif")  // 3 frames of 16×12
        let exactly = DecodingLimits(maxPixels: 192, maxFrames: 3, maxTotalPixels: 576, maxJPEGScans: 1)
        #expect(try ImageDecoder(limits: exactly).decode(bytes, frame: nil).frames.count == 3)
        var fewer = exactly
        fewer.maxFrames = 2
        #expect(throws: ImageCoreError.self) { try ImageDecoder(limits: fewer).inspect(bytes) }
        var smaller = exactly
        smaller.maxTotalPixels -= 1
        #expect(throws: ImageCoreError.self) { try ImageDecoder(limits: smaller).decode(bytes, frame: nil) }
    }

    @Test(arguments: names)
    func everyTruncationFailsTheCheckBeforeStoring(name: String) throws {
        let bytes = try Fixtures.bytes(name)
        for length in 0..<bytes.count {
            #expect(throws: ImageCoreError.self, "\(name) cut at \(length)") {
                try ImageDecoder().inspect(Array(bytes.prefix(length)))
            }
        }
    }
}
