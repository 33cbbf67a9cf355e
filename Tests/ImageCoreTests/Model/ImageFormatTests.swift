import Testing

@testable import ImageCore

@Suite struct ImageFormatTests {
    @Test func sniffsEachSupportedFormat() {
        #expect(ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0]) == .supported(.jpeg))
        #expect(ImageFormat.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .supported(.png))
        #expect(ImageFormat.sniff(Array("GIF89a....".utf8)) == .supported(.gif))
        #expect(ImageFormat.sniff(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .supported(.webp))
        // JPEG XL: a bare codestream, and the container's signature box.
        #expect(ImageFormat.sniff([0xFF, 0x0A, 0xFA, 0x7F]) == .supported(.jxl))
        #expect(
            ImageFormat.sniff([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) == .supported(.jxl))
        #expect(ImageFormat.sniff(Array("\u{0}\u{0}\u{0}\u{1C}ftypavif\u{0}\u{0}".utf8)) == .supported(.avif))
        #expect(ImageFormat.sniff(Array("\u{0}\u{0}\u{0}\u{1C}ftypavis\u{0}\u{0}".utf8)) == .supported(.avif))
        for brand in ["heic", "heix", "mif1", "msf1"] {
            #expect(ImageFormat.sniff(Array("\u{0}\u{0}\u{0}\u{1C}ftyp\(brand)\u{0}\u{0}".utf8)) == .supported(.heif))
        }
    }

    @Test func recognisesUnsupportedAndNonImages() {
        #expect(ImageFormat.sniff([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]) == .unsupported("TIFF"))
        #expect(ImageFormat.sniff(Array("<!DOCTYPE html><html>".utf8)) == .notAnImage("not an image (HTML page)"))
        #expect(ImageFormat.sniff([UInt8]()) == .notAnImage("empty body"))
        #expect(
            ImageFormat.sniff(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8))
                == .notAnImage("not an image (unrecognised data)"))
    }
}
