import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// JPEG XL images made by cjxl (`JXLSamples`) against djxl's 8-bit output.
/// Measured tolerance: none. libjxl renders the same floats for both, and
/// our rounding to 8 bits is libjxl's own, so every sample is equal (the
/// expectations below are equality, not a tolerance).
@Suite(.disabled(if: JXLSamples.missingTools != nil, "\(JXLSamples.missingTools ?? "")"))
struct JXLDecodingTests {
    /// Stills whose pixels djxl writes as they are stored.
    static let stills = [
        "lossy.jxl", "lossless.jxl", "alpha.jxl", "alpha-lossy.jxl", "icc.jxl", "gray.jxl", "recompressed.jxl",
        "groups.jxl", "alpha-groups.jxl", "alpha-opaque.jxl",
    ]

    @Test(arguments: stills)
    func decodesLikeDjxl(name: String) throws {
        let bytes = try JXLSamples.bytes(name)
        let image = try ImageDecoder(colourSpace: .original).decode(bytes, frame: nil)
        let reference = try JXLSamples.reference(name)
        #expect(image.format == .jxl)
        #expect((image.width, image.height) == (reference.width, reference.height))
        #expect(image.frames.count == 1)
        #expect(NetpbmStream.close(image.frames[0].pixels, reference, tolerance: 0), "\(name)")
        let info = try ImageDecoder().inspect(bytes)
        #expect(info.format == .jxl && info.frameCount == 1 && info.loopCount == nil)
        #expect((info.width, info.height) == (reference.width, reference.height))
    }

    @Test func sixteenBitSamplesRoundToEightBitsAsDjxlsDo() throws {
        let image = try ImageDecoder().decode(JXLSamples.bytes("16bit.jxl"), frame: nil)
        #expect(image.frames[0].pixels == (try JXLSamples.reference16("16bit.jxl")))
    }

    /// The rows `--decode ppm|pam` streams, put back in order from libjxl's
    /// groups, equal the whole decode: a 600 × 520 image is 3 × 3 groups.
    @Test(arguments: [(name: "groups.jxl", channels: 3), ("groups.jxl", 4), ("alpha.jxl", 4), ("icc.jxl", 3)])
    func streamedRowsEqualTheWholeDecode(name: String, channels: Int) throws {
        let bytes = try JXLSamples.bytes(name)
        let whole = try ImageDecoder(colourSpace: .original).decode(bytes, frame: nil)
        var rows = CollectedRows()
        try ImageDecoder(colourSpace: .original).decode(bytes, channels: channels, into: &rows)
        #expect(rows.begins == 1 && (rows.width, rows.height, rows.channels) == (whole.width, whole.height, channels))
        let expected =
            channels == 4
            ? whole.frames[0].pixels
            : stride(from: 0, to: whole.frames[0].pixels.count, by: 4).flatMap { whole.frames[0].pixels[$0..<$0 + 3] }
        #expect(rows.bytes == expected)
    }

    @Test func animationIsCompositedWithItsTimingAndLoop() throws {
        let bytes = try JXLSamples.bytes("animation.jxl")
        let info = try ImageDecoder().inspect(bytes)
        #expect(info.format == .jxl && info.frameCount == 3 && info.loopCount == 0)
        let image = try ImageDecoder().decode(bytes, frame: nil)
        #expect(image.frames.map(\.durationMilliseconds) == [100, 250, 400])
        #expect(image.loopCount == 0)
        // djxl writes the frames as an APNG: our APNG decoder (checked against pngtopam) reads it back.
        let apng = "\(JXLSamples.directory)/animation.reference.png"
        _ = try Shell.output("djxl '\(JXLSamples.directory)/animation.jxl' '\(apng)' >/dev/null 2>&1")
        let reference = try ImageDecoder().decode(ProfiledImages.bytes(apng), frame: nil)
        #expect(reference.frames.count == 3)
        #expect(image.frames.map(\.pixels) == reference.frames.map(\.pixels))
        #expect(try ImageDecoder().decode(bytes, frame: 2).frames[0].pixels == image.frames[2].pixels)
        // Streamed: one image per frame.
        var rows = CollectedRows()
        try ImageDecoder().decode(bytes, channels: 4, into: &rows)
        #expect(rows.begins == 3 && rows.bytes == image.frames.flatMap(\.pixels))
    }

    /// A lossless image keeps its ICC profile's values and the profile
    /// (`--colorspace original`); a lossy one with an ICC profile is decoded
    /// to sRGB, as `djxl --color_space=RGB_D65_SRG_Rel_SRG` decodes it.
    @Test func iccProfiles() throws {
        let lossless = try JXLSamples.bytes("icc.jxl")
        let kept = try ImageDecoder(colourSpace: .original).decode(lossless, frame: nil)
        #expect(kept.colour?.name == "Compatible with Adobe RGB (1998)")
        #expect(kept.colour?.icc == (try ProfiledImages.bytes(ProfiledImages.adobeRGB)))
        let converted = try ImageDecoder(colourSpace: .srgb).decode(lossless, frame: nil)
        #expect(converted.colour == nil && converted.frames[0].pixels != kept.frames[0].pixels)

        let lossy = try JXLSamples.bytes("icc-lossy.jxl")
        let reference = try JXLSamples.reference("icc-lossy.jxl", colourSpace: "RGB_D65_SRG_Rel_SRG")
        for space in [ColourSpace.original, .srgb] {
            let image = try ImageDecoder(colourSpace: space).decode(lossy, frame: nil)
            #expect(image.colour == nil)
            #expect(NetpbmStream.close(image.frames[0].pixels, reference, tolerance: 0))
        }
        #expect(JXLColour.read(lossy, target: .declared).profile?.name == "Compatible with Adobe RGB (1998)")
        #expect(JXLColour.read(lossy, target: .pixels).profile == nil)
        #expect(JXLColour.read(try JXLSamples.bytes("lossy.jxl"), target: .declared).profile == nil)
    }

    /// An animation's thumbnail is scaled frame by frame as libjxl
    /// composites them (`ScaledFrames`), to the bytes of each frame scaled whole.
    @Test func animatedThumbnailsAreScaledFrameByFrame() throws {
        let bytes = try JXLSamples.bytes("animation.jxl")
        let full = try ImageDecoder().decode(bytes, frame: nil)
        let size = ScaleTarget.fit(width: 16, height: 16).size(width: full.width, height: full.height)
        let scaled = try ImageDecoder().decode(bytes, frame: nil, scale: .fit(width: 16, height: 16))
        #expect((scaled.width, scaled.height) == size && scaled.loopCount == 0)
        #expect(scaled.frames.map(\.durationMilliseconds) == [100, 250, 400])
        #expect(scaled.frames.map(\.pixels) == ImageDecoder.resample(full, to: size).frames.map(\.pixels))
    }

    /// A still's thumbnail is averaged from the rows libjxl streams
    /// (`ScaledRows`, no full-size frame), RGB or, with alpha, RGBA, to the
    /// bytes of the whole decode scaled. Of the images with transparent
    /// pixels (colour under alpha 0), those bytes are not an opaque
    /// average's: alpha is weighed in, not ignored. An image whose alpha is
    /// all 255 is averaged as opaque, as the whole image is.
    @Test(arguments: [
        "lossy.jxl", "lossless.jxl", "icc.jxl", "gray.jxl", "recompressed.jxl", "groups.jxl", "alpha.jxl",
        "alpha-lossy.jxl", "alpha-groups.jxl", "alpha-opaque.jxl",
    ])
    func stillThumbnailsEqualTheWholeDecodeScaled(name: String) throws {
        let bytes = try JXLSamples.bytes(name)
        let decoder = ImageDecoder(colourSpace: .original)
        let full = try decoder.decode(bytes, frame: nil)
        let size = ScaleTarget.fit(width: 37, height: 37).size(width: full.width, height: full.height)
        let expected = ImageDecoder.resample(full, to: size).frames[0].pixels
        let streamed = try JXLDecoder(limits: decoder.limits).thumbnail(bytes, size: size)
        #expect(streamed?.frames.map(\.pixels) == [expected], "\(name)")
        let scaled = try decoder.decode(bytes, frame: nil, scale: .fit(width: 37, height: 37))
        #expect((scaled.width, scaled.height) == size)
        #expect(scaled.frames.map(\.pixels) == [expected], "\(name)")
        let transparent = !full.frames[0].pixels.withUnsafeBytes(AreaResampler.isOpaque)
        #expect(transparent == (name.hasPrefix("alpha") && name != "alpha-opaque.jxl"))
        if transparent {
            let resampler = AreaResampler(from: full.width, full.height, to: size.width, size.height)
            var opaque = [UInt8](repeating: 0, count: expected.count)
            _ = full.frames[0].pixels.withUnsafeBytes {
                resampler.resample(
                    $0, changed: PixelRect(width: full.width, height: full.height), into: &opaque, opaque: true)
            }
            #expect(opaque != expected, "\(name): alpha changes nothing here")
        }
    }

    @Test func scaledDecodeReadsOnlyTheHeaderForItsSize() throws {
        let image = try ImageDecoder().decode(
            JXLSamples.bytes("groups.jxl"), frame: nil, scale: .fit(width: 60, height: 60))
        #expect((image.width, image.height) == (60, 52))
    }

    /// A 50 000 × 50 000 size header is refused from the basic info, before
    /// any pixel buffer: the file has no pixel data at all to decode.
    @Test func hugeHeaderIsRefusedFromTheBasicInfo() throws {
        let bytes = try JXLSamples.bytes("huge-header.jxl")
        for attempt in [
            { _ = try ImageDecoder().inspect(bytes) }, { _ = try ImageDecoder().decode(bytes, frame: nil) },
        ] {
            do {
                try attempt()
                Issue.record("a 50000×50000 JPEG XL was accepted")
            } catch let error as ImageCoreError {
                #expect(error.kind == .image && error.exceededLimit == .pixels, "\(error)")
                #expect(error.message.contains("50000×50000"), "\(error.message)")
            }
        }
    }

    @Test(arguments: ["truncated.jxl", "lossy.jxl:cut1", "animation.jxl:cut1", "lossy.jxl:flipped"])
    func truncatedAndCorruptFilesAreRefused(sample: String) throws {
        let parts = sample.split(separator: ":").map(String.init)
        var bytes = try JXLSamples.bytes(parts[0])
        if parts.count > 1, parts[1] == "cut1" { bytes.removeLast() }
        if parts.count > 1, parts[1] == "flipped" {
            for index in stride(from: bytes.count / 3, to: bytes.count, by: 97) { bytes[index] ^= 0xFF }
        }
        #expect(throws: ImageCoreError.self) { try ImageDecoder().inspect(bytes) }
        do {
            _ = try ImageDecoder().inspect(bytes)
        } catch let error as ImageCoreError {
            #expect(error.kind == .image && error.message.hasPrefix("corrupt JPEG XL"), "\(error.message)")
        }
    }
}

/// Every row a `RowSink` receives, and how often it began.
struct CollectedRows: RowSink {
    var begins = 0
    var width = 0
    var height = 0
    var channels = 0
    var bytes: [UInt8] = []

    mutating func begin(width: Int, height: Int, channels: Int) throws {
        begins += 1
        (self.width, self.height, self.channels) = (width, height, channels)
    }

    mutating func write(rows: UnsafeRawBufferPointer) throws {
        precondition(rows.count % (width * channels) == 0, "not whole rows")
        bytes += rows
    }
}
