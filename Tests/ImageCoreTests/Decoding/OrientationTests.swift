import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// The eight EXIF orientations on a 2×3 image of labelled pixels.
@Suite struct OrientationTests {
    /// Pixels a…f as rows "a b / c d / e f", each pixel's red channel its letter.
    let image = DecodedImage(
        format: .jpeg, width: 2, height: 3,
        frames: [.init(pixels: Array("abcdef".utf8).flatMap { [$0, 0, 0, 255] })])

    func rows(_ orientation: Int) -> String {
        let turned = EXIFOrientation.apply(orientation, to: image)
        let letters = stride(from: 0, to: turned.frames[0].pixels.count, by: 4).map {
            Character(UnicodeScalar(turned.frames[0].pixels[$0]))
        }
        return stride(from: 0, to: letters.count, by: turned.width).map { String(letters[$0..<$0 + turned.width]) }
            .joined(separator: "/")
    }

    @Test func everyOrientationTurnsThePixelsUpright() {
        #expect(rows(1) == "ab/cd/ef")
        #expect(rows(2) == "ba/dc/fe")
        #expect(rows(3) == "fe/dc/ba")
        #expect(rows(4) == "ef/cd/ab")
        #expect(rows(5) == "ace/bdf")
        #expect(rows(6) == "eca/fdb")
        #expect(rows(7) == "fdb/eca")
        #expect(rows(8) == "bdf/ace")
    }

    @Test func webpOrientationIsReadFromItsExifChunk() throws {
        let directory = try TemporaryDirectory()
        let tiff: [UInt8] = [
            0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0,
        ]
        try Data(tiff).write(to: URL(fileURLWithPath: "\(directory.path)/o.exif"))
        let source = Fixtures.directory.appendingPathComponent("lossy.webp").path
        _ = try ScalingTests.shell(
            "webpmux -set exif '\(directory.path)/o.exif' '\(source)' -o '\(directory.path)/o.webp' 2>&1")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(directory.path)/o.webp")))
        let info = try ImageDecoder().inspect(bytes)
        #expect(info.orientation == 8)
        let upright = try ImageDecoder().decode(bytes, frame: nil)
        #expect(upright.width == info.height && upright.height == info.width)
    }

    @Test func orientationIsReadFromTheExifSegment() throws {
        // SOI, APP1 "Exif" with a big-endian TIFF holding one IFD0 entry: 0x0112 = 6.
        let tiff: [UInt8] = [
            0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0,
        ]
        let app1 = Array("Exif\0\0".utf8) + tiff
        let jpeg: [UInt8] =
            [0xFF, 0xD8, 0xFF, 0xE1, UInt8((app1.count + 2) >> 8), UInt8((app1.count + 2) & 0xFF)]
            + app1 + [0xFF, 0xD9]
        #expect(EXIFOrientation.read(jpeg: jpeg) == 6)
        #expect(EXIFOrientation.read(jpeg: [0xFF, 0xD8, 0xFF, 0xD9]) == 1)
        #expect(EXIFOrientation.read(jpeg: Array(jpeg.prefix(20))) == 1)
    }

    /// The Exif segment libjpeg's header read returns is found in the bytes
    /// in place: the first APP1 that is Exif, past other APP1s (XMP) and
    /// fill bytes, as libjpeg's saved markers gave it.
    @Test(.enabled(if: Corpus.directory != nil, Corpus.missing))
    func aJPEGsOrientationComesFromItsFirstExifSegment() throws {
        let jpeg = try Corpus.bytes("images/jpeg_exif-orientation6_photo_gdk-testrotate.jpg")
        let decoder = JPEGDecoder(limits: .default)
        #expect(try decoder.header(jpeg).orientation == 6)
        let xmp = Array("http://ns.adobe.com/xap/1.0/\0<x/>".utf8)
        let app1: [UInt8] = [0xFF, 0xFF, 0xE1, UInt8((xmp.count + 2) >> 8), UInt8((xmp.count + 2) & 0xFF)] + xmp
        #expect(try decoder.header(Array(jpeg[..<2]) + app1 + jpeg[2...]).orientation == 6)
        let plain = try Corpus.bytes("images/jpeg_baseline_420_photo_grace-hopper.jpg")
        #expect(try decoder.header(plain).orientation == 1)
    }
}
