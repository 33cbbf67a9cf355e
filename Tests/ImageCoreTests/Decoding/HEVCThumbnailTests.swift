import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// HEIC thumbnails made from libde265's planes (`HEVCThumbnail`) against
/// heif-convert's 8-bit PNG area-averaged to the same size. The two orders
/// (shrink then convert; convert then shrink) agree but for rounding where
/// no sample is clipped: measured at most 2 (mostly 1) on every file here,
/// whose samples all stay inside 0...255; on a 12 MP photo, where the
/// conversion clips some pixels before libheif's average, at most 3 (mean
/// 0.12). A wrong range or matrix moves these bars by 14 or more.
@Suite(.enabled(if: HEIFSamples.toolsPresent, "needs heif-enc and heif-convert (libheif-examples)"))
struct HEVCThumbnailTests {
    let work: TemporaryDirectory
    /// The largest difference of any sample from the reference.
    static let tolerance = 2

    init() throws {
        work = try TemporaryDirectory()
    }

    /// Colour bars over two ramps, 250 × 170, every sample in 56...200:
    /// strong enough colours that a wrong matrix or range moves them by 14
    /// or more, yet none leaves 0...255 under any of the conversions tried
    /// (a sample clipped before the average and not after would differ for
    /// that reason alone).
    func colourBars() throws -> String {
        let (width, height) = (250, 170)
        let (low, high): (UInt8, UInt8) = (56, 200)
        let bars: [[UInt8]] = [
            [high, low, low], [low, high, low], [low, low, high], [high, high, low], [low, high, high],
            [high, low, high], [high, 128, low],
        ]
        var samples: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                if y < height / 2 {
                    samples += bars[x * bars.count / width]
                } else {
                    samples += [
                        UInt8(56 + x * 144 / (width - 1)), UInt8(56 + (y - height / 2) * 144 / (height / 2)), 128,
                    ]
                }
            }
        }
        let ppm = "\(work.path)/bars.ppm", png = "\(work.path)/bars.png"
        try Data(Array("P6 \(width) \(height) 255\n".utf8) + samples).write(to: URL(fileURLWithPath: ppm))
        _ = try Shell.output("pnmtopng '\(ppm)' > '\(png)'")
        return png
    }

    /// The fast path's thumbnail of `heic` at `size` (upright), failing
    /// the test when the file would take libheif's path instead.
    func fastThumbnail(_ heic: [UInt8], size: (width: Int, height: Int)) throws -> [UInt8] {
        let items = try #require(HEIFItems(heic))
        let plan = try #require(HEVCThumbnail(heic, items: items, size: size), "libheif's path was taken")
        return try #require(plan.thumbnail(heic, size: size), "libde265 declined")
    }

    /// heif-convert's pixels of `heic`, area-averaged to `size`.
    func referenceThumbnail(_ heic: [UInt8], size: (width: Int, height: Int)) throws -> [UInt8] {
        let reference = try HEIFSamples.reference(heic, in: work)
        return AreaResampler.resample(
            reference.rgba, width: reference.width, height: reference.height, to: size.width, size.height)
    }

    /// The largest difference between two RGBA buffers' samples.
    func largestDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    /// heif-enc 1.15 writes no `colr` for a PNG and ignores its nclx
    /// options; x265's own parameters set the stream's VUI (its samples
    /// stay as heif-enc converted them, which does not matter here: libheif
    /// converts them back by the VUI, and so must this path).
    @Test(arguments: [
        ("default (BT.601, full range)", ""), ("limited range", "-p x265:range=limited"),
        ("full range", "-p x265:range=full"), ("BT.709, limited", "-p x265:colormatrix=bt709 -p x265:range=limited"),
        ("BT.709, full", "-p x265:colormatrix=bt709 -p x265:range=full"), ("4:4:4", "-p chroma=444"),
    ])
    func aSingleImageMatchesHeifConvertShrunk(name: String, options: String) throws {
        let heic = try HEIFSamples.encode(try colourBars(), options: "-q 90 \(options)", in: work)
        for size in [(100, 68), (250, 170), (31, 17)] {
            let fast = try fastThumbnail(heic, size: size)
            let difference = largestDifference(fast, try referenceThumbnail(heic, size: size))
            #expect(difference <= Self.tolerance, "\(name) at \(size): differs by \(difference)")
        }
        // Through the decoder of record.
        let scaled = try ImageDecoder().decode(heic, frame: nil, scale: .fit(width: 100, height: 100))
        #expect((scaled.width, scaled.height) == (100, 68))
        #expect(scaled.frames[0].pixels == (try fastThumbnail(heic, size: (100, 68))))
    }

    /// What makes the test above able to fail: converted with the other
    /// range or the other matrix, the thumbnail leaves the tolerance.
    @Test func aWrongRangeOrMatrixWouldBeSeen() throws {
        let png = try colourBars()
        let limited709 = try HEIFSamples.encode(
            png, options: "-q 90 -p x265:colormatrix=bt709 -p x265:range=limited", in: work)
        let reference = try referenceThumbnail(limited709, size: (100, 68))
        let items = try #require(HEIFItems(limited709))
        let plan = try #require(HEVCThumbnail(limited709, items: items, size: (100, 68)))
        for (matrix, fullRange) in [(1, true), (6, false)] {
            let wrong = try #require(
                plan.thumbnail(limited709, size: (100, 68), colour: (matrix: matrix, fullRange: fullRange)))
            let difference = largestDifference(wrong, reference)
            #expect(difference > 3 * Self.tolerance, "matrix \(matrix), full range \(fullRange): only \(difference)")
        }
        let right = try #require(plan.thumbnail(limited709, size: (100, 68), colour: (matrix: 1, fullRange: false)))
        #expect(largestDifference(right, reference) <= Self.tolerance)
    }

    /// An item's `colr` nclx box wins over the stream's VUI, as libheif
    /// uses it for the conversion: a limited-range BT.601 stream whose
    /// box says full-range BT.709 (and the reverse) is converted per the box.
    @Test(arguments: [
        ("-p x265:range=limited", 1, true), ("-p x265:colormatrix=bt709 -p x265:range=full", 6, false),
    ])
    func anNclxBoxOverridesTheStreamsOwn(options: String, matrix: Int, fullRange: Bool) throws {
        let plain = try HEIFSamples.encode(try colourBars(), options: "-q 90 \(options)", in: work)
        let nclx: [UInt8] =
            [0, 0, 0, 19] + Array("colrnclx".utf8) + [0, 1, 0, 13, 0, UInt8(matrix), fullRange ? 0x80 : 0]
        let heic = HEIFSamples.addingProperties([nclx], to: plain)
        let fast = try fastThumbnail(heic, size: (100, 68))
        let difference = largestDifference(fast, try referenceThumbnail(heic, size: (100, 68)))
        #expect(difference <= Self.tolerance, "\(options), box \(matrix) \(fullRange): differs by \(difference)")
        #expect(largestDifference(fast, try fastThumbnail(plain, size: (100, 68))) > 3 * Self.tolerance)
    }

    /// irot and imir, alone and together, applied to the thumbnail as
    /// libheif applies them to the image.
    @Test(arguments: [
        ("irot 1", [HEIFSamples.irot(1)]), ("irot 2", [HEIFSamples.irot(2)]), ("irot 3", [HEIFSamples.irot(3)]),
        ("imir 0", [HEIFSamples.imir(0)]), ("imir 1", [HEIFSamples.imir(1)]),
        ("irot 1, imir 0", [HEIFSamples.irot(1), HEIFSamples.imir(0)]),
        ("imir 1, irot 3", [HEIFSamples.imir(1), HEIFSamples.irot(3)]),
    ])
    func rotationsAndMirrorsAreAppliedToTheThumbnail(name: String, properties: [[UInt8]]) throws {
        let plain = try HEIFSamples.encode(try colourBars(), options: "-q 90", in: work)
        let heic = HEIFSamples.addingProperties(properties, to: plain)
        let info = try ImageDecoder().inspect(heic)
        let size = info.width > info.height ? (100, 68) : (68, 100)
        let fast = try fastThumbnail(heic, size: size)
        let difference = largestDifference(fast, try referenceThumbnail(heic, size: size))
        #expect(difference <= Self.tolerance, "\(name): differs by \(difference)")
    }

    /// A grid of separately coded tiles (the right and bottom ones cropped)
    /// is joined before the shrink: the pixels heif-convert's joined image gives.
    @Test func aGridOfTilesMatchesHeifConvertShrunk() throws {
        let heic = try HEIFSamples.grid(in: work)
        #expect(try #require(HEIFItems(heic)).primaryType == "grid")
        for size in [(96, 64), (240, 160), (47, 31)] {
            let difference = largestDifference(
                try fastThumbnail(heic, size: size), try referenceThumbnail(heic, size: size))
            #expect(difference <= Self.tolerance, "grid at \(size): differs by \(difference)")
        }
        let rotated = HEIFSamples.addingProperties([HEIFSamples.irot(1)], to: heic)
        let difference = largestDifference(
            try fastThumbnail(rotated, size: (64, 96)), try referenceThumbnail(rotated, size: (64, 96)))
        #expect(difference <= Self.tolerance, "rotated grid: differs by \(difference)")
    }

    /// Alpha, `clap`, 4:2:2 and an embedded thumbnail big enough take
    /// libheif's path, and its pixels: the plan declines them.
    @Test func whatItCannotDoExactlyTakesLibheifsPath() throws {
        let alpha = try HEIFSamples.make(.alpha, in: work)
        let clapped = HEIFSamples.addingProperties(
            [HEIFSamples.clap(width: 200, height: 120)], to: try HEIFSamples.make(.lossy, in: work))
        let thumbnailed = try HEIFSamples.make(.thumbnail, in: work)  // 240×160, thumbnail 64×42
        let gridWithAlpha = try HEIFSamples.grid(alpha: (240, 160), in: work)
        let chroma422 = try HEIFSamples.encode(try colourBars(), options: "-q 90 -p chroma=422", in: work)
        for (name, heic, size) in [
            ("alpha", alpha, (60, 40)), ("clap", clapped, (50, 30)), ("embedded thumbnail", thumbnailed, (48, 32)),
            ("grid with alpha", gridWithAlpha, (60, 40)), ("4:2:2", chroma422, (100, 68)),
        ] {
            let items = try #require(HEIFItems(heic))
            #expect(HEVCThumbnail(heic, items: items, size: size) == nil, "\(name) took the fast path")
            let image = try ImageDecoder().decode(heic, frame: nil, scale: .fit(width: size.0, height: size.0))
            let whole = try HEIFDecoder(limits: .default).decode(heic)
            let expected = ImageDecoder.resample(whole, to: (image.width, image.height))
            if name != "embedded thumbnail" {
                #expect(image.frames[0].pixels == expected.frames[0].pixels, "\(name)")
            }
        }
        // A thumbnail too small to serve: the fast path, on the primary image.
        let items = try #require(HEIFItems(thumbnailed))
        #expect(HEVCThumbnail(thumbnailed, items: items, size: (96, 64)) != nil)
    }

    /// libde265 allocates the size the stream's SPS codes, which no limit
    /// checks: an `ispe` that claims less (what the limits see) than the
    /// SPS codes is declined before libde265 sees the stream, and the
    /// SPS's size is read as the stream says (250 × 170 coded as 256 × 176).
    @Test func aStreamCodingMoreThanItsIspeIsDeclined() throws {
        let heic = try HEIFSamples.encode(try colourBars(), options: "-q 90", in: work)
        let items = try #require(HEIFItems(heic))
        let hvcC = try #require(items.properties.first { $0.type == "hvcC" }?.payload)
        var index = hvcC.startIndex + 23
        var sizes: [(width: Int, height: Int)] = []
        for _ in 0..<hvcC[hvcC.startIndex + 22] {
            let count = Int(ISOBoxes.readUInt(hvcC, at: index + 1, bytes: 2))
            index += 3
            for _ in 0..<count {
                let length = Int(ISOBoxes.readUInt(hvcC, at: index, bytes: 2))
                let unit = hvcC[(index + 2)..<(index + 2 + length)]
                if (unit[unit.startIndex] >> 1) & 0x3F == 33 {
                    sizes.append(try #require(HEVCThumbnail.pictureSize(sequenceParameterSet: unit)))
                }
                index += 2 + length
            }
        }
        #expect(sizes.count == 1 && sizes[0] == (256, 176))
        #expect(HEVCThumbnail(heic, items: items, size: (50, 34)) != nil)
        let claiming = HEIFSamples.claimingSize(heic, width: 100, height: 68)
        let claimed = try #require(HEIFItems(claiming))
        #expect(HEVCThumbnail(claiming, items: claimed, size: (50, 34)) == nil)
    }

    /// Coded data damaged inside `mdat` (boxes whole): libde265's error or
    /// warning sends the file to libheif, whose verdict stands (an image
    /// error, or its picture); never a crash.
    @Test func damagedCodedDataFallsBackToLibheif() throws {
        var bytes = try HEIFSamples.encode(try colourBars(), options: "-q 90", in: work)
        for index in stride(from: bytes.count / 2, to: bytes.count - 16, by: 3) { bytes[index] = 0xFF }
        do {
            _ = try ImageDecoder().decode(bytes, frame: nil, scale: .fit(width: 100, height: 100))
        } catch let error as ImageCoreError {
            #expect(error.kind == .image)
        }
    }
}
