import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Animated GIF thumbnails as gifsicle makes them (man page, ANIMATED
/// THUMBNAILS): the source's colour table, each frame cut to what changed,
/// unchanged pixels transparent, and every frame still within the stated
/// error of the full re-composite (every frame composited at full size,
/// then area-averaged).
struct AnimatedThumbnailTests {
    /// The bound the man page states: Euclidean distance in 0–255 RGB.
    static let bound = 24

    /// The full re-composite: every frame decoded at full size, then scaled.
    static func recomposite(_ bytes: [UInt8], fit: ScaleTarget) throws -> DecodedImage {
        let full = try ImageDecoder().decode(bytes, frame: nil)
        let size = fit.size(width: full.width, height: full.height)
        return ImageDecoder.resample(full, to: size)
    }

    /// The largest distance of an opaque pixel, and how many pixels differ in transparency.
    static func error(_ ours: [UInt8], _ reference: [UInt8]) -> (largest: Int, transparencyMismatches: Int) {
        var largest = 0, mismatches = 0
        for pixel in 0..<(ours.count / 4) {
            let opaque = ours[pixel * 4 + 3] >= 128, expected = reference[pixel * 4 + 3] >= 128
            guard opaque == expected else {
                mismatches += 1
                continue
            }
            guard opaque else { continue }
            let distance = (0..<3).reduce(0) { sum, channel in
                let difference = Int(ours[pixel * 4 + channel]) - Int(reference[pixel * 4 + channel])
                return sum + difference * difference
            }
            largest = max(largest, Int(Double(distance).squareRoot().rounded(.up)))
        }
        return (largest, mismatches)
    }

    /// Checks a thumbnail of `bytes` against the full re-composite; returns the GIF.
    @discardableResult
    static func checkThumbnail(_ bytes: [UInt8], fit: ScaleTarget, name: String) throws -> [UInt8] {
        let reference = try recomposite(bytes, fit: fit)
        let scaled = try ImageDecoder().decode(bytes, frame: nil, scale: fit)
        // Resampling only what changed gives the very bytes of resampling every frame whole.
        #expect(scaled.frames.map(\.pixels) == reference.frames.map(\.pixels), "\(name): scaled frames")
        let gif = try encode(scaled, as: .gif, quality: nil)
        let decoded = try ImageDecoder().decode(gif, frame: nil)
        #expect(decoded.width == reference.width && decoded.height == reference.height)
        #expect(decoded.frames.count == reference.frames.count, "\(name): frame count")
        #expect(decoded.loopCount == reference.loopCount)
        #expect(
            decoded.frames.map(\.durationMilliseconds)
                == reference.frames.map { ($0.durationMilliseconds + 5) / 10 * 10 })
        for (index, (ours, theirs)) in zip(decoded.frames, reference.frames).enumerated() {
            let error = Self.error(ours.pixels, theirs.pixels)
            #expect(error.transparencyMismatches == 0, "\(name) frame \(index): transparency differs")
            #expect(error.largest <= Self.bound, "\(name) frame \(index): a pixel \(error.largest) off")
        }
        return gif
    }

    @Test(
        .enabled(if: Corpus.directory != nil, "../shared/corpus is not present"),
        arguments: Corpus.manifest("MANIFEST.tsv").filter { $0["format"] == "GIF" && $0["frames"] != "1" }.map {
            $0["file"]!
        })
    func corpusAnimationMatchesTheRecompositeAndGifsiclesSize(file: String) throws {
        let bytes = try Corpus.bytes("images/\(file)")
        // At full size every colour is in the source's table: the very frames (the first
        // few, which keeps the test fast under the sanitizers).
        var original = try ImageDecoder().decode(bytes, frame: nil)
        original.frames = Array(original.frames.prefix(6))
        let again = try ImageDecoder().decode(encode(original, as: .gif, quality: nil), frame: nil)
        #expect(again.frames.map(\.pixels) == original.frames.map(\.pixels), "\(file): full-size frames")
        let gif = try Self.checkThumbnail(bytes, fit: .fit(width: 64, height: 64), name: file)
        // The bytes written are the behaviour here: at most 1.1 × gifsicle's own thumbnail
        // (gifsicle is one of `make deps`' packages).
        let path = try #require(Corpus.directory).appendingPathComponent("images/\(file)").path
        let gifsicle = try Shell.output("gifsicle --resize-fit 64x64 '\(path)'")
        #expect(Double(gif.count) <= 1.1 * Double(gifsicle.count), "\(file): \(gif.count) vs \(gifsicle.count) bytes")
    }

    @Test func twoColourSourceGainsTheGreysItsEdgesNeed() throws {
        // Black and white stripes one pixel wide, halved: every output pixel is mid-grey,
        // 127 away from either colour of the table. Grey must be added.
        let width = 8, height = 4
        var pixels: [UInt8] = []
        for _ in 0..<height { for x in 0..<width { pixels += x % 2 == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255] } }
        let palette = FramePalette(colours: [0x000000, 0xFF_FFFF], isLocal: false)
        let frames = [DecodedImage.Frame(pixels: pixels, durationMilliseconds: 100, palette: palette)]
        let image = DecodedImage(format: .gif, width: width, height: height, frames: frames, loopCount: 0)
        let scaled = ImageDecoder.resample(image, to: (width / 2, height / 2))
        let decoded = try ImageDecoder().decode(GIFEncoder.encode(scaled), frame: nil)
        #expect(Self.error(decoded.frames[0].pixels, scaled.frames[0].pixels).largest <= Self.bound)
    }

    @Test func spriteOnTransparencyIsCutToWhatMoves() throws {
        // A 2×2 red square stepping right over a transparent 16×8 canvas.
        let width = 16, height = 8
        let palette = FramePalette(colours: [0xFF0000, 0x000000], isLocal: false)
        let frames = (0..<4).map { step in
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            for y in 3..<5 {
                for x in (step * 3)..<(step * 3 + 2) {
                    (pixels[(y * width + x) * 4], pixels[(y * width + x) * 4 + 3]) = (255, 255)
                }
            }
            return DecodedImage.Frame(pixels: pixels, durationMilliseconds: 50, palette: palette)
        }
        let image = DecodedImage(format: .gif, width: width, height: height, frames: frames, loopCount: 0)
        var plan = GIFFramePlanner(width: width, height: height)
        for frame in frames { plan.add(frame.pixels, palette: frame.palette, durationMilliseconds: 50) }
        // Each frame draws only its square; each but the last clears its own afterwards.
        #expect(plan.frames.map(\.rect.width) == [2, 2, 2, 2] && plan.frames.map(\.rect.height) == [2, 2, 2, 2])
        #expect(plan.frames.map(\.clearsAfterwards) == [true, true, true, false])
        let decoded = try ImageDecoder().decode(GIFEncoder.encode(image), frame: nil)
        #expect(decoded.frames.map(\.pixels) == frames.map(\.pixels))
    }

    @Test func apngFramesHoldWhatChanged() throws {
        // A 2×2 square stepping right over an opaque grey 16×8 canvas, then one half-transparent step.
        let width = 16, height = 8
        let frames = (0..<4).map { step in
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            for pixel in 0..<(width * height) {
                pixels.replaceSubrange(pixel * 4..<pixel * 4 + 4, with: [90, 90, 90, 255])
            }
            for y in 3..<5 {
                for x in (step * 3)..<(step * 3 + 2) {
                    pixels.replaceSubrange(
                        (y * width + x) * 4..<(y * width + x) * 4 + 4, with: [255, 0, 0, step == 3 ? 128 : 255])
                }
            }
            return DecodedImage.Frame(pixels: pixels, durationMilliseconds: 50)
        }
        let image = DecodedImage(format: .png, width: width, height: height, frames: frames, loopCount: 0)
        let bytes = try APNGEncoder.encode(image)
        let structure = try #require(try APNGStructure.read(bytes))
        // The first frame whole; then the old and the new square: 5 × 2 pixels.
        #expect(structure.frames.map(\.width) == [16, 5, 5, 5] && structure.frames.map(\.height) == [8, 2, 2, 2])
        #expect(structure.frames.map(\.x) == [0, 0, 3, 6] && structure.frames.map(\.y) == [0, 3, 3, 3])
        // OVER while every changed pixel is opaque; SOURCE for the half-transparent step.
        #expect(structure.frames.map(\.blendOp) == [0, 1, 1, 0])
        #expect(try ImageDecoder().decode(bytes, frame: nil).frames.map(\.pixels) == frames.map(\.pixels))
    }

    @Test func nearestColourIsTheFirstClosestInTableOrder() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            // Few distinct channel values, so that ties happen.
            let table = (0..<Int.random(in: 1...256, using: &generator)).map { _ in
                (0..<3).reduce(UInt32(0)) { value, _ in value << 8 | UInt32([0, 64, 128, 255].randomElement()!) }
            }
            var nearest = NearestColour(table)
            for _ in 0..<50 {
                let colour = UInt32.random(in: 0...0xFF_FFFF, using: &generator)
                let distances = table.map { NearestColour.distance($0, colour) }
                let expected = distances.firstIndex(of: distances.min()!)!
                let found = nearest.find(colour)
                #expect(Int(found.index) == expected && found.distance == distances[expected])
            }
        }
    }

    @Test func changedRectangleIsTheSmallestHoldingEveryDifference() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let width = Int.random(in: 1...9, using: &generator), height = Int.random(in: 1...5, using: &generator)
            let old = (0..<(width * height * 4)).map { _ in UInt8.random(in: 0...1, using: &generator) }
            var new = old
            var expected = PixelRect.empty
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                let x = Int.random(in: 0..<width, using: &generator), y = Int.random(in: 0..<height, using: &generator)
                new[(y * width + x) * 4 + Int.random(in: 0...3, using: &generator)] |= 0x80
                expected = expected.including(x: x, y: y)
            }
            let found = old.withUnsafeBytes { old in
                new.withUnsafeBytes { PixelRect.changed(from: old, to: $0, width: width, height: height) }
            }
            #expect(found == expected, "\(width)×\(height)")
        }
    }
}
