import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// The animated encoders, read back by our decoders (themselves checked
/// against the reference decoders): every frame, duration and loop count.
struct AnimationEncoderTests {
    /// Six frames with every dispose and blend op, partly transparent pixels, three plays.
    static func animation() throws -> DecodedImage {
        try ImageDecoder().decode(Fixtures.bytes("apng-ops.png"), frame: nil)
    }

    static func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        Double(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(max(1, a.count))
    }

    @Test func apngRoundTripsExactly() throws {
        let image = try Self.animation()
        let decoded = try ImageDecoder().decode(APNGEncoder.encode(image), frame: nil)
        #expect(decoded.format == .png && decoded.loopCount == 3)
        #expect(decoded.frames.map(\.durationMilliseconds) == image.frames.map(\.durationMilliseconds))
        #expect(decoded.frames.map(\.pixels) == image.frames.map(\.pixels))
    }

    @Test func losslessWebPKeepsEveryFrame() throws {
        let image = try Self.animation()
        let bytes = try AnimatedWebPEncoder.encode(image, quality: nil)
        let info = try ImageDecoder().inspect(bytes)
        #expect(info.format == .webp && info.frameCount == 6 && info.loopCount == 3)
        let decoded = try ImageDecoder().decode(bytes, frame: nil)
        #expect(decoded.frames.map(\.durationMilliseconds) == image.frames.map(\.durationMilliseconds))
        for (ours, theirs) in zip(decoded.frames, image.frames) {
            #expect(NetpbmImage.zeroingTransparent(ours.pixels) == NetpbmImage.zeroingTransparent(theirs.pixels))
        }
    }

    @Test func gifKeepsFramesTimingAndTransparency() throws {
        let original = try ImageDecoder().decode(Fixtures.bytes("anim3.gif"), frame: nil)
        let decoded = try ImageDecoder().decode(GIFEncoder.encode(original), frame: nil)
        #expect(decoded.frames.count == 3 && decoded.loopCount == 0)
        #expect(decoded.frames.map(\.durationMilliseconds) == [80, 80, 80])
        // Few colours, binary alpha: nothing is lost.
        #expect(decoded.frames.map(\.pixels) == original.frames.map(\.pixels))
        // Partial alpha becomes binary; colours stay close.
        let image = try Self.animation()
        let gif = try ImageDecoder().decode(GIFEncoder.encode(image), frame: nil)
        #expect(gif.frames.count == 6 && gif.loopCount == 3)
        #expect(gif.frames.map(\.durationMilliseconds) == [100, 50, 200, 70, 30, 40])
    }

    @Test func quantizerKeepsManyColoursClose() throws {
        // 64×64 pixels, 4096 colours: median cut down to 256.
        var pixels: [UInt8] = []
        for y in 0..<64 {
            for x in 0..<64 { pixels += [UInt8(x * 4), UInt8(y * 4), UInt8((x + y) * 2), 255] }
        }
        let palette = ColorQuantizer.quantize(pixels)
        #expect(palette.colors.count <= 256 && palette.transparentIndex == nil)
        let mapped = palette.indices.flatMap { index in
            let color = palette.colors[Int(index)]
            return [color.red, color.green, color.blue, 255]
        }
        #expect(Self.meanDifference(mapped, pixels) < 3)
    }

    @Test func avifSequenceKeepsFramesAndDurations() throws {
        // Three distinct opaque frames; then the six of apng-ops, alpha included.
        let image = try ImageDecoder().decode(Fixtures.bytes("avif-sequence.avif"), frame: nil)
        let bytes = try AVIFEncoder.encode(image, quality: 90)
        let info = try ImageDecoder().inspect(bytes)
        #expect(info.format == .avif && info.frameCount == 3 && info.loopCount == 0)
        let decoded = try ImageDecoder().decode(bytes, frame: nil)
        #expect(decoded.frames.map(\.durationMilliseconds) == [100, 250, 250])
        // Lossy, so each frame is only close to its source, and closer to it than to any other frame.
        for (index, ours) in decoded.frames.enumerated() {
            let differences = image.frames.map { Self.meanDifference(ours.pixels, $0.pixels) }
            #expect(differences[index] < 4 && differences[index] == differences.min(), "frame \(index): \(differences)")
        }
        let animation = try Self.animation()
        let withAlpha = try ImageDecoder().decode(AVIFEncoder.encode(animation, quality: 90), frame: nil)
        #expect(withAlpha.frames.map(\.durationMilliseconds) == animation.frames.map(\.durationMilliseconds))
        for (ours, theirs) in zip(withAlpha.frames, animation.frames) {
            let alpha = { (pixels: [UInt8]) in stride(from: 3, to: pixels.count, by: 4).map { pixels[$0] } }
            #expect(Self.meanDifference(alpha(ours.pixels), alpha(theirs.pixels)) < 2)
        }
        let still = try AVIFEncoder.encode(
            DecodedImage(format: .png, width: 16, height: 12, frames: [image.frames[0]]), quality: nil)
        #expect(try ImageDecoder().inspect(still).frameCount == 1)
    }
}
