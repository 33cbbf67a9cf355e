import Foundation
import TestSupport

/// HEIC files made at test time by libheif's own `heif-enc` (libheif-examples,
/// x265) from the fixtures, and their reference decodes by `heif-convert`
/// (8-bit PNG, read back by `pngtopam -alphapam`).
enum HEIFSamples {
    /// Whether heif-enc and heif-convert are installed (`make deps`).
    static let toolsPresent =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-enc")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-convert")

    /// The kinds the tests cover, each from a fixture with heif-enc's options.
    enum Kind: String, CaseIterable, Sendable {
        /// 4:2:0 at quality 50, from a 240×160 photo-like PPM.
        case lossy
        /// Lossless 4:4:4 (`-L -p chroma=444`), RGB and alpha.
        case lossless
        /// Lossy with an alpha plane (an auxiliary image of its own).
        case alpha
        /// Lossy with an embedded 64-pixel thumbnail (`-t 64`).
        case thumbnail

        var source: String { self == .lossy || self == .thumbnail ? "photo.png" : "rgba.png" }
        var options: String {
            switch self {
            case .lossy: "-q 50"
            case .lossless: "-L -p chroma=444"
            case .alpha: "-q 70"
            case .thumbnail: "-q 50 -t 64"
            }
        }
    }

    /// A HEIC of `kind`, written in `directory`.
    static func make(_ kind: Kind, in directory: TemporaryDirectory) throws -> [UInt8] {
        let source = try sourcePNG(kind.source, in: directory)
        return try encode(source, options: kind.options, in: directory)
    }

    /// `png` (a path) encoded by heif-enc with `options`.
    static func encode(_ png: String, options: String, in directory: TemporaryDirectory) throws -> [UInt8] {
        let out = "\(directory.path)/out-\(UUID().uuidString).heic"
        _ = try Shell.output("heif-enc \(options) -o '\(out)' '\(png)' >/dev/null 2>&1")
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
    }

    /// heif-convert's decode of `heic`, as Netpbm (RGBA when it has alpha).
    static func reference(_ heic: [UInt8], in directory: TemporaryDirectory) throws -> NetpbmImage {
        let base = "\(directory.path)/ref-\(UUID().uuidString)"
        try Data(heic).write(to: URL(fileURLWithPath: "\(base).heic"))
        _ = try Shell.output("heif-convert '\(base).heic' '\(base).png' >/dev/null 2>&1")
        return try NetpbmImage(Shell.output("pngtopam -alphapam '\(base).png' 2>/dev/null"))
    }

    /// A fixture as PNG: `rgba.png` as it is, `photo.png` the 24×16
    /// baseline JPEG enlarged tenfold (240×160) by pamscale.
    static func sourcePNG(_ name: String, in directory: TemporaryDirectory) throws -> String {
        let path = "\(directory.path)/\(name)"
        if name == "photo.png" {
            let jpeg = "\(directory.path)/baseline.jpg"
            try Data(Fixtures.bytes("baseline.jpg")).write(to: URL(fileURLWithPath: jpeg))
            _ = try Shell.output("djpeg -ppm '\(jpeg)' | pamscale 10 | pnmtopng > '\(path)' 2>/dev/null")
        } else {
            try Data(Fixtures.bytes(name)).write(to: URL(fileURLWithPath: path))
        }
        return path
    }

    /// `heic` with its primary item's `ispe` claiming `width` × `height`
    /// (a crafted header: the coded picture is unchanged).
    static func claimingSize(_ heic: [UInt8], width: UInt32, height: UInt32) -> [UInt8] {
        var bytes = heic
        guard let at = (0..<(bytes.count - 4)).first(where: { bytes[$0..<($0 + 4)].elementsEqual("ispe".utf8) })
        else { return bytes }
        let fields = [width, height].flatMap { value in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        bytes.replaceSubrange((at + 8)..<(at + 16), with: fields)
        return bytes
    }
}
