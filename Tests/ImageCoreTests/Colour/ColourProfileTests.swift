import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImageCore

/// Profiles read from headers (no Little CMS), and conversions of colour
/// spaces given by numbers, checked against values worked out by hand.
@Suite struct ColourProfileTests {
    @Test func nclxCodePointsAreNamedAndSRGBNeedsNothing() {
        #expect(EmbeddedProfile.nclx(primaries: 9, transfer: 16).profile?.name == "nclx BT.2020 PQ")
        #expect(EmbeddedProfile.nclx(primaries: 9, transfer: 18).profile?.name == "nclx BT.2020 HLG")
        #expect(EmbeddedProfile.nclx(primaries: 12, transfer: 13).profile?.name == "nclx Display P3 sRGB")
        #expect(EmbeddedProfile.nclx(primaries: 1, transfer: 1).profile?.name == "nclx BT.709 BT.709")
        guard case .none = EmbeddedProfile.nclx(primaries: 1, transfer: 13) else {
            Issue.record("BT.709 primaries with the sRGB curve are sRGB")
            return
        }
        guard case .ignored = EmbeddedProfile.nclx(primaries: 5, transfer: 13) else {
            Issue.record("unknown primaries are reported")
            return
        }
    }

    /// Display P3 values through the nclx profile equal the matrix worked out
    /// from the primaries (P3 → XYZ → sRGB, sRGB curve both ways): 215 93 31, 0 183 78.
    @Test func displayP3ConvertsAsItsPrimariesSay() throws {
        let profile = try #require(EmbeddedProfile.nclx(primaries: 12, transfer: 13).profile)
        let transform = try ColourTransform(profile, layout: .rgb, outputChannels: 3)
        var pixels: [UInt8] = [200, 100, 50, 60, 180, 90]
        pixels.withUnsafeMutableBytes { transform.convert(inPlace: $0) }
        for (got, want) in zip(pixels, [215, 93, 31, 0, 183, 78] as [Int]) { #expect(abs(Int(got) - want) <= 2) }
    }

    /// A PNG with gAMA 1.0 (linear) and sRGB's chromaticities: linear 128
    /// is sRGB 188 (IEC 61966-2-1); alpha is kept.
    @Test func pngGammaAndChromaticitiesAreHonoured() throws {
        var png = Array(Fixtures.tinyPNG.prefix(33))
        png += chunk("gAMA", [0, 1, 0x86, 0xA0])  // 100 000
        let chrm = [31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000].flatMap { bigEndian($0) }
        png += chunk("cHRM", chrm)
        png += Fixtures.tinyPNG.dropFirst(33)
        let profile = try #require(EmbeddedProfile.png(png).profile)
        #expect(profile.name == "PNG gAMA 100000 cHRM" && profile.primaries?.transfer == .gamma(1))
        let transform = try ColourTransform(profile, layout: .rgba, outputChannels: 4)
        var pixels: [UInt8] = [128, 128, 128, 77, 0, 255, 0, 255]
        pixels.withUnsafeMutableBytes { transform.convert(inPlace: $0) }
        #expect(abs(Int(pixels[0]) - 188) <= 1 && pixels[0] == pixels[1] && pixels[1] == pixels[2])
        #expect(pixels[3] == 77 && pixels[7] == 255)
        // gAMA 1/2.2 with sRGB's chromaticities is taken as sRGB, as libpng does.
        var nearSRGB = Array(Fixtures.tinyPNG.prefix(33)) + chunk("gAMA", bigEndian(45455)) + chunk("cHRM", chrm)
        nearSRGB += Fixtures.tinyPNG.dropFirst(33)
        guard case .none = EmbeddedProfile.png(nearSRGB) else {
            Issue.record("sRGB-like gAMA/cHRM needs no conversion")
            return
        }
        // The decoder converts the pixels with --colorspace srgb, and leaves them with original.
        let converted = try ImageDecoder(colourSpace: .srgb).decode(png, frame: nil)
        let stored = try ImageDecoder(colourSpace: .original).decode(png, frame: nil)
        #expect(stored.frames[0].pixels == Fixtures.tinyPNGPixels && stored.colour == profile)
        #expect(converted.frames[0].pixels != stored.frames[0].pixels && converted.colour == nil)
    }

    /// ICC v4 names itself in a 'mluc' tag (UTF-16BE), v2 in 'desc' (ASCII).
    @Test func descriptionsOfBothICCVersionsAreRead() throws {
        let adobe = try ProfiledImages.bytes(ProfiledImages.adobeRGB)
        #expect(try ICCHeader(adobe).description == "Compatible with Adobe RGB (1998)")
        #expect(try ICCHeader(adobe).colourSpace == "RGB ")
        let name = Array("Wide ☀".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let mluc =
            Array("mluc".utf8) + [0, 0, 0, 0] + bigEndian(1) + bigEndian(12) + Array("enUS".utf8)
            + bigEndian(name.count) + bigEndian(28) + name
        var profile = Array(adobe.prefix(128)) + bigEndian(1) + Array("desc".utf8) + bigEndian(144)
        profile += bigEndian(mluc.count) + mluc
        profile.replaceSubrange(0..<4, with: bigEndian(profile.count))
        #expect(try ICCHeader(profile).description == "Wide ☀")
        #expect(throws: ICCError.self) { try ICCHeader(Array(profile.dropLast())) }
    }

    /// A gray JPEG's gray profile converts its pixels with srgb; with
    /// original it is not kept (an RGB output cannot carry a gray profile).
    @Test(.enabled(if: Corpus.directory != nil, Corpus.missing)) func grayProfilesConvertButAreNotEmbedded() throws {
        let gray = try Corpus.bytes("images/jpeg_gray_baseline_photo_gdk-cat.jpg")
        let jpeg = try ProfileEmbedding.jpeg(
            ProfiledImages.bytes("/usr/share/color/icc/ghostscript/sgray.icc"), in: gray)
        let stored = try ImageDecoder(colourSpace: .original).decode(jpeg, frame: nil)
        #expect(stored.colour == nil)
        #expect(stored.frames[0].pixels == (try ImageDecoder().decode(gray, frame: nil)).frames[0].pixels)
        let converted = try ImageDecoder(colourSpace: .srgb).decode(jpeg, frame: nil)
        let pixels = converted.frames[0].pixels
        let neutral = (0..<(pixels.count / 4)).allSatisfy { pixel in
            let (red, green) = (Int(pixels[pixel * 4]), Int(pixels[pixel * 4 + 1]))
            return abs(red - green) <= 1 && pixels[pixel * 4 + 3] == 255
        }
        #expect(neutral)
    }

    /// APP2 segments are joined by their sequence numbers, not their order in the file.
    @Test(.enabled(if: Corpus.directory != nil, Corpus.missing)) func jpegSegmentsJoinInSequenceOrder() throws {
        let cmyk = try ProfiledImages.bytes(ProfiledImages.cmyk)
        let jpeg = try ProfileEmbedding.jpeg(cmyk, in: Corpus.bytes(ProfiledImages.photo))
        var ranges: [Range<Int>] = []
        var index = 2
        while index + 4 <= jpeg.count, jpeg[index] == 0xFF, jpeg[index + 1] != 0xDA {
            let end = index + 2 + (Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3]))
            if jpeg[index + 1] == 0xE2 { ranges.append(index..<end) }
            index = end
        }
        #expect(ranges.count == 3)
        var shuffled = Array(jpeg[..<ranges[0].lowerBound])
        shuffled += jpeg[ranges[2]]
        shuffled += jpeg[ranges[0]]
        shuffled += jpeg[ranges[1]]
        shuffled += jpeg[ranges[2].upperBound...]
        #expect(EmbeddedProfile.jpeg(shuffled).profile?.icc == cmyk)
        #expect(EmbeddedProfile.jpeg(shuffled).profile?.name == "Artifex CMYK SWOP Profile")
    }

    /// Headers are untrusted: flipped bytes, cut files and lying lengths in
    /// every container and in the profile itself end in a profile, nothing
    /// or a reason, never a crash (a seeded run of mutations).
    @Test func damagedHeadersNeverCrashTheReader() throws {
        let adobe = try ProfiledImages.bytes(ProfiledImages.adobeRGB)
        var seed: UInt64 = 27
        func next() -> Int {
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int(truncatingIfNeeded: (z ^ (z >> 31)) >> 1)
        }
        let jpeg = try ProfileEmbedding.jpeg(adobe, in: [0xFF, 0xD8, 0xFF, 0xD9])
        let png = try ProfileEmbedding.png(adobe, in: Fixtures.tinyPNG)
        let webp = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPICCP".utf8) + [68, 2, 0, 0] + adobe
        let avifColr = Array("prof".utf8) + adobe
        let ipco =
            bigEndian(8 + 8 + avifColr.count) + Array("ipco".utf8) + bigEndian(8 + avifColr.count)
            + Array("colr".utf8) + avifColr
        let iprp = bigEndian(8 + ipco.count) + Array("iprp".utf8) + ipco
        let avif = bigEndian(12 + iprp.count) + Array("meta".utf8) + [0, 0, 0, 0] + iprp
        let samples: [(ImageFormat, [UInt8])] = [(.jpeg, jpeg), (.png, png), (.webp, webp), (.avif, avif)]
        for (format, bytes) in samples {
            #expect(EmbeddedProfile.read(bytes, format: format).profile?.icc == adobe, "\(format) intact")
            for _ in 0..<1500 {
                var damaged = bytes
                for _ in 0...(next() % 4) {
                    damaged[next() % damaged.count] = UInt8(truncatingIfNeeded: next())
                }
                if next() % 3 == 0 { damaged = Array(damaged.prefix(next() % damaged.count)) }
                _ = EmbeddedProfile.read(damaged, format: format)
            }
        }
    }

    /// A profile whose header reads but whose tags Little CMS refuses is
    /// ignored where it is used: the pixels stay as stored and the note says why.
    @Test(.enabled(if: Corpus.directory != nil, Corpus.missing)) func profilesLittleCMSRefusesLeaveThePixelsAlone()
        throws
    {
        var broken = try ProfiledImages.bytes(ProfiledImages.adobeRGB)
        let count = Int(ICCHeader.read32(broken, 128))
        for tag in 0..<count where broken[(132 + tag * 12)..<(136 + tag * 12)].elementsEqual("rXYZ".utf8) {
            let offset = ICCHeader.read32(broken, 136 + tag * 12)
            broken.replaceSubrange(offset..<(offset + 4), with: Array("junk".utf8))
        }
        let photo = try Corpus.bytes(ProfiledImages.photo)
        let jpeg = try ProfileEmbedding.jpeg(broken, in: photo)
        let profile = try #require(EmbeddedProfile.jpeg(jpeg).profile)
        #expect(throws: ICCError.self) { try ColourTransform(profile, layout: .rgb, outputChannels: 3) }
        let notes = Mutex<[String]>([])
        let decoder = ImageDecoder(
            colourSpace: .srgb, notes: EventLog { line in notes.withLock { $0.append(line) } })
        let decoded = try decoder.decode(jpeg, frame: nil)
        #expect(decoded.frames[0].pixels == (try ImageDecoder().decode(photo, frame: nil)).frames[0].pixels)
        #expect(
            notes.withLock { $0 }.contains { $0.contains("Compatible with Adobe RGB (1998)") && $0.contains("ignored") }
        )
    }

    private func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(data.count) + body + bigEndian(Int(CRC32.checksum(body[...])))
    }

    private func bigEndian(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
}
