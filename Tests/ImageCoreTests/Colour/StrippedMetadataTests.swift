import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// What an encoded output does not carry over from its source: EXIF, and
/// GPS in it, go; the colour profile stays (`ColourCommandTests`).
@Suite(.serialized, .enabled(if: Corpus.directory != nil, Corpus.missing)) struct StrippedMetadataTests: CommandSuite {
    let fixture: CommandFixture
    let work: TemporaryDirectory

    init() throws {
        fixture = try CommandFixture()
        work = try TemporaryDirectory()
    }

    @Test func thumbnailsCarryNoEXIFNorGPS() throws {
        let photo = try ProfiledImages.jpeg(profile: ProfiledImages.adobeRGB, in: work)
        let tagged = Array(photo.prefix(2)) + GPSExif.segment + photo.dropFirst(2)
        #expect(ProfiledImages.jpegSegments(tagged).contains { $0.marker == 0xE1 })
        server.route("/gps.jpg", .ok(tagged))
        for encoding in ["jpeg", "png", "webp", "avif"] {
            let out = try fetch("--thumbnail", "40x40", "--encode", encoding, server.url("/gps.jpg"))
            #expect(out.status == 0)
            #expect(!out.stdout.contains(GPSExif.marker), "\(encoding): no GPS")
            #expect(!out.stdout.contains(Array("Exif".utf8)), "\(encoding): no EXIF at all")
            #expect(
                EmbeddedProfile.read(out.stdout, format: try #require(ProfiledImages.format(of: out.stdout))).profile
                    != nil)
        }
        let jpeg = try fetch("--thumbnail", "40x40", server.url("/gps.jpg"))
        #expect(
            ProfiledImages.jpegSegments(jpeg.stdout).allSatisfy {
                $0.marker == 0xE0 || $0.marker == 0xE2 || $0.marker >= 0xC0 && $0.marker < 0xE0 || $0.marker == 0xFE
            })
    }
}

extension [UInt8] {
    /// Whether `needle` occurs anywhere.
    fileprivate func contains(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}

/// An EXIF APP1 segment whose IFD0 points at a GPS IFD holding a latitude reference.
enum GPSExif {
    /// The GPSInfo tag (0x8825) as it appears, big-endian, in the IFD entry.
    static let marker: [UInt8] = [0x88, 0x25, 0x00, 0x04]

    static let segment: [UInt8] = {
        var tiff: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8]
        tiff += [0, 1] + marker + [0, 0, 0, 1, 0, 0, 0, 26] + [0, 0, 0, 0]  // IFD0: GPSInfo → 26
        tiff += [0, 1] + [0, 1, 0, 2, 0, 0, 0, 2] + Array("N".utf8) + [0, 0, 0] + [0, 0, 0, 0]  // GPSLatitudeRef "N"
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        return [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }()
}
