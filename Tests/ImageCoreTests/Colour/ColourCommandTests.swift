import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// `fetch` with images that carry a colour profile, made at test time
/// (`ProfiledImages`): encoded outputs keep the profile byte for byte,
/// `--decode` converts to sRGB as Little CMS's own tools do,
/// and `--colorspace original` keeps djpeg's values (that nothing else is
/// carried over is `StrippedMetadataTests`').
@Suite(.serialized, .enabled(if: Corpus.directory != nil, Corpus.missing)) struct ColourCommandTests: CommandSuite {
    let fixture: CommandFixture
    let work: TemporaryDirectory

    init() throws {
        fixture = try CommandFixture()
        work = try TemporaryDirectory()
    }

    /// `bytes` written to a file in the work directory, and its path.
    private func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = "\(work.path)/\(name)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func jpegThumbnailKeepsTheProfileAcrossSegments() throws {
        // A 100 KB RGB profile: Adobe RGB with a private tag, so it takes two APP2 segments.
        let big = try LargeProfile.make(from: ProfiledImages.adobeRGB, padding: 100_000)
        let bigPath = try file("big.icc", big)
        let jpeg = try ProfiledImages.jpeg(profile: bigPath, in: work)
        let source = ProfiledImages.jpegProfile(jpeg)
        #expect(source.profile == big && source.segments == 2)
        server.route("/a.jpg", .ok(jpeg))
        let thumbnail = try fetch("--thumbnail", "64x64", server.url("/a.jpg"))
        #expect(thumbnail.status == 0, "\(thumbnail.stderr)")
        let kept = ProfiledImages.jpegProfile(thumbnail.stdout)
        #expect(kept.profile == big && kept.segments == 2)
        #expect(ProfiledImages.jpegSegments(thumbnail.stdout).allSatisfy { $0.payload.count <= 65_533 })
        // Little CMS's jpgicc reads the profile back from the thumbnail.
        let thumbnailPath = try file("thumb.jpg", thumbnail.stdout)
        _ = try Shell.output("jpgicc '\(thumbnailPath)' '\(work.path)/checked.jpg' >/dev/null 2>&1")
        // With --colorspace srgb the thumbnail is converted and carries no profile.
        let converted = try fetch("--thumbnail", "64x64", "--colorspace", "srgb", server.url("/a.jpg"))
        #expect(converted.status == 0)
        #expect(ProfiledImages.jpegProfile(converted.stdout).segments == 0)
        #expect(converted.stdout != thumbnail.stdout, "variants are kept per colour space")
    }

    @Test func everyEncodedFormatKeepsTheProfile() throws {
        let adobe = try ProfiledImages.bytes(ProfiledImages.adobeRGB)
        let sources: [(String, [UInt8])] = [
            ("jpg", try ProfiledImages.jpeg(profile: ProfiledImages.adobeRGB, in: work)),
            ("png", try ProfiledImages.png(profile: ProfiledImages.adobeRGB, in: work)),
            ("webp", try ProfiledImages.webp(profile: ProfiledImages.adobeRGB, in: work)),
            ("avif", try ProfiledImages.avif(profile: ProfiledImages.adobeRGB, in: work)),
            (
                "anim.webp",
                try ProfiledImages.webp(
                    profile: ProfiledImages.adobeRGB,
                    source: Corpus.bytes("images/webp_anim_lossy_varied-durations_kuttypy-pov-display.webp"), in: work)
            ),
        ]
        for (name, bytes) in sources {
            server.route("/\(name)", .ok(bytes))
            #expect(
                EmbeddedProfile.read(bytes, format: try #require(ProfiledImages.format(of: bytes))).profile?.icc
                    == adobe, "\(name)")
            for encoding in ["jpeg", "png", "webp", "avif"] {
                let out = try fetch("--thumbnail", "48x48", "--encode", encoding, server.url("/\(name)"))
                #expect(out.status == 0, "\(name) → \(encoding): \(out.stderr)")
                let format = try #require(ProfiledImages.format(of: out.stdout))
                #expect(
                    EmbeddedProfile.read(out.stdout, format: format).profile?.icc == adobe,
                    "\(name) → \(encoding) keeps the profile byte for byte")
            }
        }
        // Checked by the formats' own tools too: webpmux and avifdec find the profile.
        let webp = try fetch("--thumbnail", "48x48", "--encode", "webp", server.url("/anim.webp"))
        let extracted = try Shell.output("webpmux -get icc '\(try file("t.webp", webp.stdout))' -o -")
        #expect(extracted == adobe)
        #expect(try Shell.output("webpmux -info '\(work.path)/t.webp'").count > 0)
        let info = try Shell.output("webpinfo '\(work.path)/t.webp'")
        #expect(String(decoding: info, as: UTF8.self).contains("ANMF"), "the animation stays one")
    }

    /// An AVIF sequence whose profile is only in its track's sample entry
    /// (no `meta` box, as muxers other than libavif may write it): libavif's
    /// own sequence, its `meta` renamed `free` so every offset stays and its
    /// still-image brands replaced, reads and converts as the original does.
    @Test func anAVIFSequenceWithoutStillImageKeepsItsTracksProfile() throws {
        let frames = try (0..<2).map { index in
            try file(
                "frame\(index).ppm",
                Array("P6\n16 16\n255\n".utf8) + [UInt8](repeating: UInt8(60 + 100 * index), count: 768))
        }
        let pngs = try frames.map { ppm in
            _ = try Shell.output("pnmtopng '\(ppm)' > '\(ppm).png'")
            return "\(ppm).png"
        }
        let sequencePath = "\(work.path)/seq.avif"
        _ = try Shell.output(
            "avifenc -s 10 -l --icc '\(ProfiledImages.adobeRGB)' '\(pngs[0])' '\(pngs[1])' '\(sequencePath)' >/dev/null"
        )
        let sequence = try ProfiledImages.bytes(sequencePath)
        let meta = try #require(sequence.firstRange(of: Array("meta".utf8)))
        var trackOnly = sequence
        trackOnly.replaceSubrange(meta, with: Array("free".utf8))
        // Nor may the file type promise a still image (libavif then wants `meta`).
        let fileType = 8..<(Int(sequence[2]) << 8 | Int(sequence[3]))
        for brand in ["avif", "mif1", "miaf"] {
            if let range = trackOnly[fileType].firstRange(of: Array(brand.utf8)) {
                trackOnly.replaceSubrange(range, with: Array("iso8".utf8))
            }
        }
        guard case .profile(let fromMeta) = EmbeddedProfile.avif(sequence),
            case .profile(let fromTrack) = EmbeddedProfile.avif(trackOnly)
        else {
            Issue.record("no profile found in the sequence with or without its meta box")
            return
        }
        #expect(fromTrack.name == fromMeta.name && fromTrack.name.contains("Adobe"), "\(fromTrack.name)")
        server.route("/seq.avif", .ok(sequence))
        server.route("/track.avif", .ok(trackOnly))
        let original = try fetch("--decode", "ppm", "--frame", "1", server.url("/seq.avif"))
        let converted = try fetch("--decode", "ppm", "--frame", "1", server.url("/track.avif"))
        let unconverted = try fetch(
            "--decode", "ppm", "--frame", "1", "--colorspace", "original", server.url("/track.avif"))
        #expect(
            original.status == 0 && converted.status == 0 && unconverted.status == 0,
            "\(original.stderr) \(converted.stderr)")
        #expect(converted.stdout == original.stdout)
        #expect(converted.stdout != unconverted.stdout, "the track's profile was applied")
    }

    @Test func decodedPixelsMatchLittleCMSsOwnTools() throws {
        let profile = ProfiledImages.adobeRGB
        let inputs: [(String, [UInt8])] = [
            ("jpg", try ProfiledImages.jpeg(profile: profile, in: work)),
            ("png", try ProfiledImages.png(profile: profile, in: work)),
            ("webp", try ProfiledImages.webp(profile: profile, in: work)),
            ("avif", try ProfiledImages.avif(profile: profile, in: work)),
        ]
        for (name, bytes) in inputs {
            server.route("/d.\(name)", .ok(bytes))
            let stored = try fetch("--decode", "ppm", "--colorspace", "original", server.url("/d.\(name)"))
            #expect(stored.status == 0, "\(stored.stderr)")
            let reference = try ProfiledImages.tificc(stored.stdout, profile: profile, in: work)
            for format in ["ppm", "pam"] {
                let converted = try fetch("--decode", format, server.url("/d.\(name)"))
                #expect(converted.status == 0)
                let share = ProfiledImages.closeShare(try NetpbmImage(converted.stdout), reference, tolerance: 2)
                #expect(share >= 0.99, "\(name) as \(format): \(share) of pixels within ±2 of tificc")
            }
            // Scaled rows are converted too.
            let small = try fetch("--decode", "ppm", "--thumbnail", "100x100", server.url("/d.\(name)"))
            let smallStored = try fetch(
                "--decode", "ppm", "--thumbnail", "100x100", "--colorspace", "original", server.url("/d.\(name)"))
            let smallReference = try ProfiledImages.tificc(smallStored.stdout, profile: profile, in: work)
            #expect(ProfiledImages.closeShare(try NetpbmImage(small.stdout), smallReference, tolerance: 2) >= 0.99)
        }
        // As stored, a JPEG's pixels are djpeg's, byte for byte.
        let jpegPath = try file("d.jpg", inputs[0].1)
        let original = try fetch("--decode", "ppm", "--colorspace", "original", server.url("/d.jpg"))
        #expect(
            try NetpbmImage(original.stdout).samples == NetpbmImage(Shell.output("djpeg -ppm '\(jpegPath)'")).samples)
    }

    /// `--decode png` is sRGB with no profile; with `--colorspace original` it keeps the stored values and their profile.
    @Test func decodedPNGCarriesTheProfileOnlyWhenNotConverted() throws {
        let adobe = try ProfiledImages.bytes(ProfiledImages.adobeRGB)
        server.route("/p.jpg", .ok(try ProfiledImages.jpeg(profile: ProfiledImages.adobeRGB, in: work)))
        let converted = try fetch("--decode", "png", server.url("/p.jpg"))
        #expect(converted.status == 0)
        #expect(EmbeddedProfile.png(converted.stdout).profile == nil)
        let stored = try fetch("--decode", "png", "--colorspace", "original", server.url("/p.jpg"))
        #expect(EmbeddedProfile.png(stored.stdout).profile?.icc == adobe)
        // pngtopam reads it, and its pixels are djpeg's.
        let pixels = try NetpbmImage(Shell.output("pngtopam '\(try file("p.png", stored.stdout))'"))
        let djpeg = try NetpbmImage(
            Shell.output(
                "djpeg -ppm '\(try file("p.jpg", ProfiledImages.jpeg(profile: ProfiledImages.adobeRGB, in: work)))'"))
        #expect(pixels.samples == djpeg.samples)
    }

    @Test func imagesWithoutAProfileAreUntouchedAndLoadNoLittleCMS() throws {
        let jpeg = try Corpus.bytes(ProfiledImages.photo)
        server.route("/plain.jpg", .ok(jpeg))
        let decoded = try run(
            ["fetch", "--decode", "ppm", server.url("/plain.jpg")], environment: ["LD_DEBUG": "libs"])
        #expect(decoded.status == 0)
        #expect(
            try NetpbmImage(decoded.stdout).samples
                == NetpbmImage(Corpus.bytes("truth/jpeg_baseline_420_photo_grace-hopper.ppm")).samples)
        let loaderLog = decoded.stderr
        #expect(loaderLog.contains("libjpeg"), "LD_DEBUG=libs reports what the loader loads")
        #expect(!loaderLog.contains("liblcms2"))
        let warm = try run(["fetch", server.url("/plain.jpg")], environment: ["LD_DEBUG": "libs"])
        #expect(warm.status == 0 && !warm.stderr.contains("liblcms2"))
        // An image with a profile loads it.
        server.route("/adobe.jpg", .ok(try ProfiledImages.jpeg(profile: ProfiledImages.adobeRGB, in: work)))
        let profiled = try run(
            ["fetch", "--decode", "ppm", server.url("/adobe.jpg")], environment: ["LD_DEBUG": "libs"])
        #expect(profiled.stderr.contains("liblcms2"))
    }

    @Test func cmykJPEGGoesThroughItsPressProfile() throws {
        let cmyk = try Corpus.bytes("images/jpeg_cmyk_adobe-inverted_go-video001.jpg")
        let profiled = try ProfileEmbedding.jpeg(try ProfiledImages.bytes(ProfiledImages.cmyk), in: cmyk)
        #expect(ProfiledImages.jpegProfile(profiled).segments == 3)
        let path = try file("cmyk.jpg", profiled)
        server.route("/cmyk.jpg", .ok(profiled))
        let decoded = try fetch("--decode", "ppm", server.url("/cmyk.jpg"))
        #expect(decoded.status == 0, "\(decoded.stderr)")
        // jpgicc (Little CMS's JPEG tool) honours the Adobe inversion itself; its output is a quality-100 JPEG.
        _ = try Shell.output("jpgicc -q 100 '\(path)' '\(work.path)/ref.jpg' >/dev/null 2>&1")
        let reference = try NetpbmImage(Shell.output("djpeg -ppm '\(work.path)/ref.jpg'"))
        #expect(ProfiledImages.closeShare(try NetpbmImage(decoded.stdout), reference, tolerance: 3) >= 0.99)
        // --colorspace original keeps djpeg's own CMYK conversion.
        let stored = try fetch("--decode", "ppm", "--colorspace", "original", server.url("/cmyk.jpg"))
        #expect(try NetpbmImage(stored.stdout).samples == NetpbmImage(Shell.output("djpeg -ppm '\(path)'")).samples)
    }

    @Test func damagedProfilesAreIgnored() throws {
        let adobe = try ProfiledImages.bytes(ProfiledImages.adobeRGB)
        let photo = try Corpus.bytes(ProfiledImages.photo)
        let truth = try NetpbmImage(Corpus.bytes("truth/jpeg_baseline_420_photo_grace-hopper.ppm")).samples
        let damaged: [(String, [UInt8])] = [
            ("truncated", Array(adobe.prefix(300))),
            ("garbage", [UInt8](repeating: 0x5A, count: 600)),
            ("wrong-size", Array(adobe.prefix(4)) + [UInt8](repeating: 0, count: 596)),
        ]
        for (name, profile) in damaged {
            server.route("/\(name).jpg", .ok(try ProfileEmbedding.jpeg(profile, in: photo)))
            let decoded = try fetch("-v", "--decode", "ppm", server.url("/\(name).jpg"))
            #expect(decoded.status == 0, "\(name): \(decoded.stderr)")
            #expect(try NetpbmImage(decoded.stdout).samples == truth, "\(name): pixels as stored")
            #expect(decoded.stderr.contains("ICC profile"), "\(name): -v says why")
            let thumbnail = try fetch("--offline", "--thumbnail", "32x32", server.url("/\(name).jpg"))
            #expect(thumbnail.status == 0)
            #expect(
                ProfiledImages.jpegProfile(thumbnail.stdout).segments == 0, "\(name): a damaged profile is not copied")
        }
        // A multi-segment profile with a segment missing is ignored whole.
        let whole = try ProfileEmbedding.jpeg(try ProfiledImages.bytes(ProfiledImages.cmyk), in: photo)
        guard case .profile = EmbeddedProfile.jpeg(whole) else { throw CocoaError(.fileReadCorruptFile) }
        var index = 2, app2 = 0
        var cut = whole
        while index + 4 <= whole.count, whole[index] == 0xFF {
            let length = Int(whole[index + 2]) << 8 | Int(whole[index + 3])
            if whole[index + 1] == 0xE2 {
                app2 += 1
                if app2 == 2 {
                    cut.removeSubrange(index..<(index + 2 + length))
                    break
                }
            }
            index += 2 + length
        }
        guard case .ignored(let why) = EmbeddedProfile.jpeg(cut) else { throw CocoaError(.fileReadCorruptFile) }
        #expect(why.contains("2 of 3 segments"))
    }

    @Test func jsonNamesTheProfile() throws {
        server.route("/j.jpg", .ok(try ProfiledImages.jpeg(profile: ProfiledImages.adobeRGB, in: work)))
        server.route("/n.avif", .ok(try ProfiledImages.avif(profile: nil, cicp: "9/16/9", in: work)))
        server.route("/plain.jpg", .ok(try Corpus.bytes(ProfiledImages.photo)))
        let named = try fetch("--json", server.url("/j.jpg"))
        #expect(named.stdoutText.contains(#""icc":"Compatible with Adobe RGB (1998)""#))
        let nclx = try fetch("--json", server.url("/n.avif"))
        #expect(nclx.stdoutText.contains(#""icc":"nclx BT.2020 PQ""#))
        let plain = try fetch("--json", server.url("/plain.jpg"))
        #expect(!plain.stdoutText.contains(#""icc""#))
    }

    @Test func nclxIsKeptInAVIFAndMadeIntoAProfileElsewhere() throws {
        server.route("/p3.avif", .ok(try ProfiledImages.avif(profile: nil, cicp: "12/13/6", in: work)))
        let avif = try fetch("--thumbnail", "48x48", server.url("/p3.avif"))
        #expect(avif.status == 0, "\(avif.stderr)")
        #expect(EmbeddedProfile.read(avif.stdout, format: .avif).profile?.name == "nclx Display P3 sRGB")
        let jpeg = try fetch("--thumbnail", "48x48", "--encode", "jpeg", server.url("/p3.avif"))
        let made = ProfiledImages.jpegProfile(jpeg.stdout)
        #expect(made.segments == 1)
        #expect((try? ICCHeader(made.profile))?.colourSpace == "RGB ")
        // Little CMS's own tool reads the profile made for it.
        _ = try Shell.output(
            "jpgicc '\(try file("p3.jpg", jpeg.stdout))' '\(work.path)/p3-checked.jpg' >/dev/null 2>&1")
    }
}
