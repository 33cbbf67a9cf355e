import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Scaled decoding: target sizes, the area filter, and agreement with
/// netpbm's `pamscale` (pixel mixing, the same area averaging).
@Suite struct ScalingTests {
    @Test func targetSizesKeepTheAspectAndNeverEnlarge() {
        #expect(ScaleTarget.fit(width: 1024, height: 1024).size(width: 6000, height: 4000) == (1024, 683))
        #expect(ScaleTarget.fit(width: 100, height: 50).size(width: 400, height: 400) == (50, 50))
        #expect(ScaleTarget.fit(width: 800, height: 800).size(width: 300, height: 200) == (300, 200))
        #expect(ScaleTarget.fit(width: 10, height: 10).size(width: 10_000, height: 1) == (10, 1))
        let capped = ScaleTarget.maxPixels(1_000_000).size(width: 6000, height: 4000)
        #expect(capped.width * capped.height <= 1_000_000 && capped.width * capped.height > 990_000)
        #expect(ScaleTarget.maxPixels(100).size(width: 5, height: 5) == (5, 5))
        #expect(ScaleTarget(thumbnail: "512x256") == .fit(width: 512, height: 256))
        #expect(ScaleTarget(thumbnail: "512") == nil && ScaleTarget(thumbnail: "0x5") == nil)
    }

    @Test func areaAveragingWeighsCoverageAndIgnoresTransparentColour() {
        // 2×1 → 1×1: the mean of the two.
        #expect(
            AreaResampler.resample([0, 0, 0, 255, 200, 100, 50, 255], width: 2, height: 1, to: 1, 1) == [
                100, 50, 25, 255,
            ])
        // A transparent pixel lends no colour, only its alpha.
        #expect(
            AreaResampler.resample([9, 9, 9, 0, 200, 100, 50, 255], width: 2, height: 1, to: 1, 1) == [
                200, 100, 50, 128,
            ])
        // 3 → 2: the middle pixel is shared half and half.
        #expect(
            AreaResampler.resample([0, 0, 0, 255, 90, 90, 90, 255, 180, 180, 180, 255], width: 3, height: 1, to: 2, 1)
                == [30, 30, 30, 255, 150, 150, 150, 255])
        let flat = [UInt8](repeating: 77, count: 37 * 23 * 4)
        #expect(
            AreaResampler.resample(flat, width: 37, height: 23, to: 5, 3) == [UInt8](repeating: 77, count: 5 * 3 * 4))
    }

    /// An opaque image takes `resampleOpaque` (rows first, no premultiplication):
    /// its samples are the general path's but for float rounding, at most 1 apart.
    /// One alpha byte below 255 anywhere, in the eight-pixel blocks or the
    /// pixels after them, makes a frame not opaque.
    @Test func oneTranslucentPixelAnywhereIsNotOpaque() {
        for count in [0, 1, 7, 8, 9, 17, 33] {
            let opaque = [UInt8](repeating: 255, count: count * 4)
            #expect(opaque.withUnsafeBytes { AreaResampler.isOpaque($0) })
            for pixel in 0..<count {
                var pixels = opaque
                pixels[pixel * 4 + 3] = 254
                #expect(!pixels.withUnsafeBytes { AreaResampler.isOpaque($0) }, "pixel \(pixel) of \(count)")
                // A colour byte below 255 changes nothing.
                pixels = opaque
                pixels[pixel * 4] = 0
                #expect(pixels.withUnsafeBytes { AreaResampler.isOpaque($0) })
            }
        }
    }

    @Test func opaqueImagesResampleAsTheGeneralPathDoes() {
        var generator = SystemRandomNumberGenerator()
        let (width, height, newWidth, newHeight) = (301, 173, 97, 55)
        var pixels = (0..<width * height * 4).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for index in stride(from: 3, to: pixels.count, by: 4) { pixels[index] = 255 }
        let opaque = AreaResampler.resample(pixels, width: width, height: height, to: newWidth, newHeight)
        var general = [UInt8](repeating: 0, count: newWidth * newHeight * 4)
        pixels.withUnsafeBytes {
            _ = AreaResampler(from: width, height, to: newWidth, newHeight)
                .resample($0, changed: PixelRect(width: width, height: height), into: &general)
        }
        #expect(opaque.count == general.count)
        #expect(zip(opaque, general).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        #expect(stride(from: 3, to: opaque.count, by: 4).allSatisfy { opaque[$0] == 255 })
    }

    /// RGBA rows pushed to `ScaledRows` a few at a time make the bytes of
    /// the whole image resampled: premultiplied where any alpha is below
    /// 255, even when the first such pixel comes after output rows were made
    /// (row 300 of 400: output row 75 of 100), opaque where none is. At 4:1
    /// the averages are exact, and a tie rounds to even in the opaque path,
    /// away from zero in the other: the two paths' bytes differ.
    @Test(arguments: [0, 300, nil])
    func streamedRGBARowsResampleAsTheWholeImageDoes(firstTransparentRow: Int?) throws {
        var generator = SystemRandomNumberGenerator()
        let (width, height, size) = (300, 400, (width: 75, height: 100))
        var pixels = (0..<width * height * 4).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for index in stride(from: 3, to: pixels.count, by: 4) where index / 4 / width < firstTransparentRow ?? height {
            pixels[index] = 255
        }
        var scaled = ScaledRows(from: width, height, to: size)
        try scaled.begin(width: width, height: height, channels: 4)
        var row = 0
        while row < height {
            let count = min(height - row, Int.random(in: 1...37, using: &generator))
            try pixels[row * width * 4..<(row + count) * width * 4].withUnsafeBytes { try scaled.write(rows: $0) }
            row += count
        }
        try scaled.finish()
        let whole = AreaResampler.resample(pixels, width: width, height: height, to: size.width, size.height)
        #expect(scaled.pixels == whole)
        #expect(whole.withUnsafeBytes(AreaResampler.isOpaque) == (firstTransparentRow == nil))
        var premultiplied = [UInt8](repeating: 0, count: whole.count)
        _ = pixels.withUnsafeBytes {
            AreaResampler(from: width, height, to: size.width, size.height)
                .resample($0, changed: PixelRect(width: width, height: height), into: &premultiplied)
        }
        #expect((premultiplied == whole) == (firstTransparentRow != nil))
    }

    /// Three planes (libheif's R, G and B) resample to the very bytes the
    /// same pixels interleaved do: one arithmetic, two layouts. Planes with
    /// row padding, each its own, and a part of the output equal to that part of the whole.
    @Test func planarRGBResamplesAsInterleavedRGBDoes() {
        var generator = SystemRandomNumberGenerator()
        let (width, height, newWidth, newHeight) = (301, 173, 97, 55)
        let rgb = (0..<width * height * 3).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let strides = [width, width + 5, width + 64]
        var planes: [[UInt8]] = []
        for plane in 0..<3 {
            var samples = [UInt8](repeating: 0xEE, count: strides[plane] * height)
            for y in 0..<height {
                for x in 0..<width { samples[y * strides[plane] + x] = rgb[(y * width + x) * 3 + plane] }
            }
            planes.append(samples)
        }
        let resampler = AreaResampler(from: width, height, to: newWidth, newHeight)
        var interleaved = [UInt8](repeating: 0, count: newWidth * newHeight * 4)
        var planar = interleaved, part = interleaved
        rgb.withUnsafeBufferPointer { source in
            interleaved.withUnsafeMutableBufferPointer { output in
                resampler.resampleOpaque(
                    channels: 3, outX: 0..<newWidth, outY: 0..<newHeight, into: output.baseAddress!
                ) {
                    source.baseAddress! + $0 * width * 3
                }
            }
        }
        for (outX, outY, target) in [(0..<newWidth, 0..<newHeight, 0), (13..<40, 7..<30, 1)] {
            planes[0].withUnsafeBufferPointer { red in
                planes[1].withUnsafeBufferPointer { green in
                    planes[2].withUnsafeBufferPointer { blue in
                        let bases = [red.baseAddress!, green.baseAddress!, blue.baseAddress!]
                        func run(_ output: UnsafeMutableBufferPointer<UInt8>) {
                            resampler.resamplePlanar(outX: outX, outY: outY, into: output.baseAddress!) {
                                bases[$0] + $1 * strides[$0]
                            }
                        }
                        if target == 0 {
                            planar.withUnsafeMutableBufferPointer { run($0) }
                        } else {
                            part.withUnsafeMutableBufferPointer { run($0) }
                        }
                    }
                }
            }
        }
        #expect(planar == interleaved)
        for y in 7..<30 {
            for x in 13..<40 {
                let at = (y * newWidth + x) * 4
                #expect(part[at..<at + 4] == interleaved[at..<at + 4], "(\(x), \(y))")
            }
        }
    }

    @Test(.enabled(if: Corpus.directory != nil, Corpus.missing)) func thumbnailsAgreeWithPamscale() throws {
        let file = "images/png_rgb8_iccp-itxt_photo_skimage-chelsea.png"
        let image = try ImageDecoder().decode(Corpus.bytes(file), frame: nil, scale: .fit(width: 100, height: 100))
        #expect(image.width == 100 && image.height == 67)
        let path = Corpus.directory!.appendingPathComponent(file).path
        let reference = try NetpbmImage(Self.shell("pngtopam '\(path)' 2>/dev/null | pamscale -xyfit 100 100"))
        #expect(reference.width == 100 && reference.height == 67)
        let mine = image.frames[0].pixels.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
        let meanDifference =
            zip(mine, reference.samples).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1)) } / Double(mine.count)
        #expect(meanDifference < 1.0, "mean difference \(meanDifference)")
    }

    @Test(.enabled(if: Corpus.directory != nil, Corpus.missing)) func jpegIsDecodedAtAReducedDCTScaleThenResampled()
        throws
    {
        let bytes = try Corpus.bytes("images/jpeg_large-20MP_photo_lomiri-kleiber.jpg")
        let header = try JPEGDecoder(limits: .default).header(bytes)
        let eighths = JPEGDecompression.scaleEighths(width: header.width, height: header.height, atLeast: (1024, 576))
        let scaled = ((header.width * eighths + 7) / 8, (header.height * eighths + 7) / 8)
        #expect(scaled.0 >= 1024 && scaled.1 >= 576 && scaled.0 < header.width / 2)
        let image = try ImageDecoder().decode(bytes, frame: nil, scale: .fit(width: 1024, height: 1024))
        #expect(image.width == 1024 && image.height == 576 && image.frames[0].pixels.count == 1024 * 576 * 4)
        try expectThumbnailIsTheScaledDecodeResampled(bytes, size: (1024, 576))
    }

    /// A JPEG thumbnail's rows are averaged as libjpeg makes them, as RGB;
    /// its bytes are those of the decode at that DCT scale (RGBA, djpeg's
    /// pixels) resampled whole.
    @Test(arguments: ["baseline.jpg", "progressive.jpg", "gray.jpg"]) func jpegThumbnailsAreTheScaledDecodeResampled(
        name: String
    ) throws {
        let bytes = try Fixtures.bytes(name)
        let header = try JPEGDecoder(limits: .default).header(bytes)
        for divisor in [2, 3, 5] {
            try expectThumbnailIsTheScaledDecodeResampled(
                bytes, size: (max(1, header.width / divisor), max(1, header.height / divisor)))
        }
    }

    private func expectThumbnailIsTheScaledDecodeResampled(_ bytes: [UInt8], size: (width: Int, height: Int)) throws {
        let decoder = JPEGDecoder(limits: .default)
        let thumbnail = try decoder.thumbnail(bytes, size: size)
        let decoded = try decoder.decode(bytes) {
            JPEGDecompression.scaleEighths(width: $0.width, height: $0.height, atLeast: size)
        }
        let whole = AreaResampler.resample(
            decoded.frames[0].pixels, width: decoded.width, height: decoded.height, to: size.width, size.height)
        #expect((thumbnail.width, thumbnail.height) == size)
        #expect(thumbnail.frames[0].pixels == whole, "\(size)")
    }

    @Test func webpStillsUseLibwebpsScalerAndAgreeWithTheAreaFilter() throws {
        let bytes = try Fixtures.bytes("lossy.webp")
        let full = try ImageDecoder().decode(bytes, frame: nil)
        let size = ScaleTarget.fit(width: full.width / 3, height: full.height / 3).size(
            width: full.width, height: full.height)
        let scaled = try ImageDecoder().decode(
            bytes, frame: nil, scale: .fit(width: full.width / 3, height: full.height / 3))
        #expect(scaled.width == size.width && scaled.height == size.height)
        let area = AreaResampler.resample(
            full.frames[0].pixels, width: full.width, height: full.height, to: size.width, size.height)
        let mean =
            zip(area, scaled.frames[0].pixels).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1)) }
            / Double(area.count)
        #expect(mean < 8, "mean difference \(mean)")
    }

    @Test func everyFrameOfAnAnimationIsScaled() throws {
        let image = try ImageDecoder().decode(Fixtures.bytes("anim3.gif"), frame: nil, scale: .fit(width: 8, height: 8))
        #expect(image.width <= 8 && image.height <= 8 && image.frames.count == 3)
        #expect(image.frames.allSatisfy { $0.pixels.count == image.width * image.height * 4 })
    }

    @Test func encodedThumbnailsDecodeBackAtTheirSize() throws {
        let source = try ImageDecoder().decode(
            Fixtures.bytes("baseline.jpg"), frame: nil, scale: .fit(width: 16, height: 16))
        for format in OutputFormat.Encoding.allCases {
            let bytes = try encode(source, as: format, quality: 90)
            let info = try ImageDecoder().inspect(bytes)
            #expect(info.format.rawValue == format.rawValue)
            #expect(info.width == source.width && info.height == source.height)
        }
        let lossless = try ImageDecoder().decode(encode(source, as: .webp, quality: nil), frame: nil)
        #expect(lossless.frames[0].pixels == source.frames[0].pixels)
    }

    static func shell(_ command: String) throws -> [UInt8] { try Shell.output(command) }
}
