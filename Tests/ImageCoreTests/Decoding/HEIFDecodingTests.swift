import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// HEIC made by heif-enc against heif-convert's 8-bit output: the pixels
/// are equal, byte for byte (both go through libheif's own YCbCr to RGB;
/// measured difference 0 on every kind); the limits read from the headers;
/// the container checks that keep broken files out of the cache.
@Suite(.enabled(if: HEIFSamples.toolsPresent, "needs heif-enc and heif-convert (libheif-examples)"))
struct HEIFDecodingTests {
    let work: TemporaryDirectory

    init() throws {
        work = try TemporaryDirectory()
    }

    @Test(arguments: HEIFSamples.Kind.allCases)
    func decodesLikeHeifConvert(kind: HEIFSamples.Kind) throws {
        let heic = try HEIFSamples.make(kind, in: work)
        #expect(ImageFormat.sniff(heic) == .supported(.heif))
        let reference = try HEIFSamples.reference(heic, in: work)
        let info = try ImageDecoder().inspect(heic)
        #expect(info.format == .heif && info.frameCount == 1 && info.orientation == 1)
        #expect((info.width, info.height) == (reference.width, reference.height))
        let image = try ImageDecoder().decode(heic, frame: nil)
        #expect(image.format == .heif && image.frames.count == 1)
        #expect((image.width, image.height) == (reference.width, reference.height))
        #expect(reference.matches(image.frames[0].pixels), "\(kind) differs from heif-convert")
        if kind == .alpha || kind == .lossless {
            #expect(reference.depth == 4)
            #expect(image.frames[0].pixels.enumerated().contains { $0.offset % 4 == 3 && $0.element < 255 })
        }
    }

    @Test func aThumbnailComesFromTheEmbeddedOneWhenItIsBigEnough() throws {
        let heic = try HEIFSamples.make(.thumbnail, in: work)  // 240×160, thumbnail 64×42
        let embedded = try heic.withUnsafeBufferPointer { buffer in
            let context = try HEIFContext(buffer, limits: .default)
            #expect(context.thumbnail(atLeast: (width: 96, height: 64)) == nil)
            let handle = try #require(context.thumbnail(atLeast: (width: 48, height: 32)))
            return DecodedImage(
                format: .heif, width: handle.width, height: handle.height,
                frames: [.init(pixels: try handle.decode { $0.rgba() })])
        }
        #expect((embedded.width, embedded.height) == (64, 42))
        // Through the decoder of record: the embedded thumbnail, area-averaged to the target.
        let scaled = try ImageDecoder().decode(heic, frame: nil, scale: .fit(width: 48, height: 48))
        #expect((scaled.width, scaled.height) == (48, 32))
        #expect(scaled.frames[0].pixels == ImageDecoder.resample(embedded, to: (48, 32)).frames[0].pixels)
        // Too small: the primary image, scaled (from libde265's planes:
        // within HEVCThumbnailTests' tolerance of libheif's RGB scaled).
        func within(_ a: [UInt8], _ b: [UInt8]) -> Bool {
            a.count == b.count && zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= HEVCThumbnailTests.tolerance }
        }
        let primary = try HEIFDecoder(limits: .default).decode(heic)
        let large = try ImageDecoder().decode(heic, frame: nil, scale: .fit(width: 96, height: 96))
        #expect(within(large.frames[0].pixels, ImageDecoder.resample(primary, to: (96, 64)).frames[0].pixels))
        // A file without one is decoded whole and scaled.
        let plain = try HEIFSamples.make(.lossy, in: work)
        let full = try ImageDecoder().decode(plain, frame: nil)
        let small = try ImageDecoder().decode(plain, frame: nil, scale: .fit(width: 48, height: 48))
        #expect(within(small.frames[0].pixels, ImageDecoder.resample(full, to: (48, 32)).frames[0].pixels))
    }

    @Test func aHugeHeaderIsRefusedBeforeAnyPixelBuffer() throws {
        let heic = HEIFSamples.claimingSize(try HEIFSamples.make(.lossy, in: work), width: 50_000, height: 50_000)
        for attempt in [{ _ = try ImageDecoder().inspect(heic) }, { _ = try ImageDecoder().decode(heic, frame: nil) }] {
            do {
                try attempt()
                Issue.record("a 50000×50000 HEIF was accepted")
            } catch let error as ImageCoreError {
                #expect(error.kind == .image && error.exceededLimit == .pixels)
                #expect(error.message.contains("50000×50000"), "\(error.message)")
            }
        }
        // The limit is ours, not libheif's: a real 240×160 file is refused below it.
        let real = try HEIFSamples.make(.lossy, in: work)
        let tight = DecodingLimits(maxPixels: 240 * 160 - 1, maxFrames: 1, maxTotalPixels: 1 << 30, maxJPEGScans: 1)
        #expect(throws: ImageCoreError.self) { try ImageDecoder(limits: tight).inspect(real) }
    }

    @Test(arguments: [HEIFSamples.Kind.alpha, .lossy])
    func truncationsFailTheCheckBeforeStoring(kind: HEIFSamples.Kind) throws {
        let bytes = try HEIFSamples.make(kind, in: work)
        // Every length in the headers, then a spread through the coded data.
        let lengths = Array(0..<min(bytes.count, 600)) + Array(stride(from: 600, to: bytes.count, by: 97))
        for length in lengths {
            #expect(throws: ImageCoreError.self, "\(kind) cut at \(length)") {
                try ImageDecoder().inspect(Array(bytes.prefix(length)))
            }
        }
    }

    @Test func damagedCodedDataIsAnImageError() throws {
        var bytes = try HEIFSamples.make(.lossy, in: work)
        // Overwrite the middle of mdat: the boxes stay whole, the HEVC does not.
        for index in stride(from: bytes.count / 2, to: bytes.count - 16, by: 3) { bytes[index] = 0xFF }
        do {
            _ = try ImageDecoder().decode(bytes, frame: nil)
        } catch let error as ImageCoreError {
            #expect(error.kind == .image)
        }
    }

    /// irot, imir and clap as libheif applies them: heif-convert's pixels, and
    /// `--json`'s size is the upright one.
    @Test(arguments: [
        ("irot 1", [HEIFSamples.irot(1)], (160, 240)), ("irot 2", [HEIFSamples.irot(2)], (240, 160)),
        ("imir 0", [HEIFSamples.imir(0)], (240, 160)), ("imir 1", [HEIFSamples.imir(1)], (240, 160)),
        ("clap, then irot 3", [HEIFSamples.clap(width: 200, height: 120), HEIFSamples.irot(3)], (120, 200)),
    ])
    func transformationsAreAppliedAsHeifConvertDoes(name: String, properties: [[UInt8]], size: (Int, Int)) throws {
        let heic = HEIFSamples.addingProperties(properties, to: try HEIFSamples.make(.lossy, in: work))
        let reference = try HEIFSamples.reference(heic, in: work)
        #expect(
            (reference.width, reference.height) == size,
            "\(name): heif-convert made \(reference.width)×\(reference.height)")
        let info = try ImageDecoder().inspect(heic)
        #expect((info.width, info.height) == size && info.orientation == 1, "\(name)")
        let image = try ImageDecoder().decode(heic, frame: nil)
        #expect((image.width, image.height) == size)
        #expect(reference.matches(image.frames[0].pixels), "\(name) differs from heif-convert")
    }

    /// A real multi-tile grid (2×2 tiles, each coded on its own, the last
    /// row and column cropped by the output size), without and with an
    /// alpha plane: heif-convert's pixels.
    @Test(arguments: [false, true])
    func aGridOfTilesDecodesLikeHeifConvert(withAlpha: Bool) throws {
        let heic = try HEIFSamples.grid(alpha: withAlpha ? (240, 160) : nil, in: work)
        let items = try #require(HEIFItems(heic))
        #expect(items.primaryType == "grid")
        #expect(items.grid.map { [$0.rows, $0.columns, $0.width, $0.height] } == [2, 2, 240, 160])
        let reference = try HEIFSamples.reference(heic, in: work)
        #expect((reference.width, reference.height) == (240, 160))
        let info = try ImageDecoder().inspect(heic)
        #expect((info.width, info.height) == (240, 160))
        let image = try ImageDecoder().decode(heic, frame: nil)
        #expect((image.width, image.height) == (240, 160))
        #expect(reference.matches(image.frames[0].pixels), "the grid differs from heif-convert")
        let alphas = stride(from: 3, to: image.frames[0].pixels.count, by: 4).map { image.frames[0].pixels[$0] }
        #expect(alphas.contains { $0 < 255 } == withAlpha)
        // Every tile is there: each quarter is the photo's, within lossy coding's error.
        let photo = try NetpbmImage(
            Shell.output("pngtopam -alphapam '\(HEIFSamples.sourcePNG("photo.png", in: work))'"))
        let difference = zip(photo.samples, image.frames[0].pixels).enumerated().filter { $0.offset % 4 != 3 }
            .map { abs(Int($0.element.0) - Int($0.element.1)) }
        #expect(difference.reduce(0, +) / difference.count < 4, "tiles out of place")
    }

    /// An alpha plane of another size than the image (120×80 under
    /// 240×160): libheif 1.15 does not attach it, so the image decodes
    /// opaque, as heif-convert writes it (RGB); nothing is read out of bounds.
    @Test func anAlphaPlaneOfAnotherSizeDecodesLikeHeifConvert() throws {
        let heic = try HEIFSamples.withAlpha(width: 120, height: 80, in: work)
        let reference = try HEIFSamples.reference(heic, in: work)
        #expect((reference.width, reference.height) == (240, 160))
        let image = try ImageDecoder().decode(heic, frame: nil)
        #expect((image.width, image.height) == (240, 160))
        #expect(reference.matches(image.frames[0].pixels), "differs from heif-convert")
        // The same file with a plane of the image's size keeps it.
        let same = try ImageDecoder().decode(HEIFSamples.withAlpha(width: 240, height: 160, in: work), frame: nil)
        #expect(stride(from: 3, to: same.frames[0].pixels.count, by: 4).contains { same.frames[0].pixels[$0] < 255 })
    }

    /// A grid whose `ispe` says 64×64 but whose descriptor (in `idat`) says
    /// 50 000 × 50 000: refused from the header before libheif allocates a
    /// canvas for it (libheif reads a grid's size only when decoding it).
    @Test func aGridsOutputSizeIsCheckedBeforeDecoding() throws {
        func be(_ value: Int, _ count: Int) -> [UInt8] {
            (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * (count - 1 - $0))) }
        }
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            be(payload.count + 8, 4) + Array(type.utf8) + payload
        }
        func fullBox(_ type: String, version: UInt8, _ payload: [UInt8]) -> [UInt8] {
            box(type, [version, 0, 0, 0] + payload)
        }
        let descriptor: [UInt8] = [0, 1, 1, 1] + be(50_000, 4) + be(50_000, 4)  // 2×2 tiles, 32-bit sizes
        let meta = fullBox(
            "meta", version: 0,
            fullBox("hdlr", version: 0, be(0, 4) + Array("pict".utf8) + be(0, 12) + [0])
                + fullBox("pitm", version: 0, be(1, 2))
                + fullBox(
                    "iinf", version: 0,
                    be(1, 2) + fullBox("infe", version: 2, be(1, 2) + be(0, 2) + Array("grid".utf8) + [0]))
                + fullBox(
                    "iloc", version: 1,
                    [0x44, 0x00] + be(1, 2) + be(1, 2) + be(1, 2) + be(0, 2) + be(1, 2) + be(0, 4)
                        + be(descriptor.count, 4))
                + box(
                    "iprp",
                    box("ipco", fullBox("ispe", version: 0, be(64, 4) + be(64, 4)))
                        + fullBox("ipma", version: 0, be(1, 4) + be(1, 2) + [1, 0x81]))
                + box("idat", descriptor))
        let file = box("ftyp", Array("heicmif1heic".utf8)) + meta + box("mdat", [0, 0, 0, 0])
        let items = try #require(HEIFItems(file))
        #expect(items.primaryType == "grid" && items.spatialExtent! == (64, 64))
        #expect(items.grid.map { [$0.rows, $0.columns, $0.width, $0.height] } == [2, 2, 50_000, 50_000])
        do {
            _ = try ImageDecoder().inspect(file)
            Issue.record("a 50000×50000 grid was accepted")
        } catch let error as ImageCoreError {
            #expect(error.exceededLimit == .pixels && error.message.contains("50000×50000"), "\(error.message)")
        }
    }
}
