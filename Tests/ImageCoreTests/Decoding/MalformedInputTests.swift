import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Broken and hostile files: an `.image` error (or, where the corpus allows
/// it, a partial image), never a crash, never an allocation the limits forbid.
struct MalformedInputTests {
    static let bad = Corpus.manifest("bad/MANIFEST.tsv")

    @Test(.enabled(if: Corpus.directory != nil, "../shared/corpus is not present"), arguments: bad.map { $0["file"]! })
    func corpusBadFileIsRejected(file: String) throws {
        let row = try #require(Self.bad.first { $0["file"] == file })
        let bytes = try Corpus.bytes("bad/\(file)")
        let mayDecodePartially =
            row["expected_robust_behaviour"]?.contains("partial") == true
            || row["expected_robust_behaviour"]?.contains("clamp") == true
        let decoder = ImageDecoder()
        do {
            _ = try decoder.inspect(bytes)
            _ = try decoder.decode(bytes, frame: nil)
            #expect(mayDecodePartially, "\(file) decoded, but must be rejected")
        } catch let error as ImageCoreError {
            #expect(error.kind == .image, "\(file): \(error.message)")
        }
    }

    @Test(
        .enabled(if: Corpus.directory != nil, "../shared/corpus is not present"),
        arguments: [
            "jpeg_progressive_444_photo_snake.jpg", "png_rgb8_adam7_go-benchRGB-interlace.png",
            "gif_anim_loop2_varied-delays_sixel-seq2gif.gif", "webp_lossless_alpha_go-tux.webp",
            "webp_anim_lossy_varied-durations_kuttypy-pov-display.webp", "jpeg_cmyk_adobe-inverted_go-video001.jpg",
        ])
    func truncatedAndBitFlippedCopiesNeverCrash(file: String) throws {
        try Self.mutate(Corpus.bytes("images/\(file)"))
    }

    @Test func ownFixturesSurviveTruncationAndBitFlips() throws {
        for fixture in try Fixtures.all() {
            try Self.mutate(fixture.bytes)
        }
    }

    /// Decodes 40 truncations and 40 single-byte corruptions of `original`.
    static func mutate(_ original: [UInt8]) throws {
        let decoder = ImageDecoder()
        var generator = SplitMix(seed: UInt64(original.count))
        var variants: [[UInt8]] = (1...40).map { Array(original.prefix(original.count * $0 / 41)) }
        for _ in 0..<40 {
            var copy = original
            copy[Int(generator.next() % UInt64(copy.count))] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
            variants.append(copy)
        }
        for variant in variants {
            do {
                _ = try decoder.inspect(variant)
                let image = try decoder.decode(variant, frame: nil)
                #expect(image.frames.allSatisfy { $0.pixels.count == image.width * image.height * 4 })
            } catch let error as ImageCoreError {
                #expect(error.kind == .image)
            }
        }
    }

    @Test func limitsHoldExactlyAtTheBoundary() throws {
        let png = Fixtures.tinyPNG  // 4×3 = 12 pixels
        #expect(throws: Never.self) {
            try ImageDecoder(limits: .init(maxPixels: 12, maxFrames: 1, maxTotalPixels: 12, maxJPEGScans: 1)).decode(
                png, frame: nil)
        }
        do {
            _ = try ImageDecoder(limits: .init(maxPixels: 11, maxFrames: 1, maxTotalPixels: 100, maxJPEGScans: 1))
                .inspect(png)
            Issue.record("a 12-pixel image passed a limit of 11")
        } catch let error as ImageCoreError {
            #expect(error.kind == .image)
            #expect(error.message.contains("exceeds the limit of 11"))
        }
    }

    @Test func frameLimitsHoldExactlyAtTheBoundary() throws {
        let gif = try #require(try Fixtures.all().first { $0.name == "anim3.gif" }).bytes
        let exactly = DecodingLimits(maxPixels: 1 << 20, maxFrames: 3, maxTotalPixels: 3 * 16 * 16, maxJPEGScans: 1)
        #expect(try ImageDecoder(limits: exactly).decode(gif, frame: nil).frames.count == 3)
        var fewer = exactly
        fewer.maxFrames = 2
        #expect(throws: ImageCoreError.self) { try ImageDecoder(limits: fewer).inspect(gif) }
        var smaller = exactly
        smaller.maxTotalPixels -= 1
        #expect(throws: ImageCoreError.self) { try ImageDecoder(limits: smaller).inspect(gif) }
    }

    @Test func progressiveScanLimitHoldsExactly() throws {
        let jpeg = try #require(try Fixtures.all().first { $0.name == "progressive.jpg" }).bytes
        let scans = JPEGMarkers.countScans(jpeg)
        #expect(scans > 1)
        var limits = DecodingLimits.default
        limits.maxJPEGScans = scans
        #expect(throws: Never.self) { try ImageDecoder(limits: limits).decode(jpeg, frame: nil) }
        limits.maxJPEGScans = scans - 1
        #expect(throws: ImageCoreError.self) { try ImageDecoder(limits: limits).inspect(jpeg) }
        // Decoding enforces it too (libjpeg's progress monitor), without the marker walk.
        #expect(throws: ImageCoreError.self) { try JPEGDecoder(limits: limits).decode(jpeg) }
        var writer = NetpbmRowWriter(format: .ppm) { _ in }
        #expect(throws: ImageCoreError.self) {
            try ImageDecoder(limits: limits).decode(jpeg, channels: 3, into: &writer)
        }
    }

    @Test func framesOutOfRangeAreErrors() throws {
        #expect(throws: ImageCoreError(.image, "frame 1 out of range (image has 1 frame)")) {
            try ImageDecoder().decode(Fixtures.tinyPNG, frame: 1)
        }
    }
}
