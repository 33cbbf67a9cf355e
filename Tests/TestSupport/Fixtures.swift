package import Foundation

/// Small images for behaviour tests. The decoder tests use the files in
/// `Fixtures/` (made by `make-fixtures.sh`) and the shared corpus.
package enum Fixtures {
    /// A 4×3 palette PNG made by `pnmtopng` from generated pixels (122 bytes).
    package static let tinyPNG: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00,
        0x00, 0x04, 0x00, 0x00, 0x00, 0x03, 0x04, 0x03, 0x00, 0x00, 0x00, 0x46, 0xDA, 0xB3, 0xF5, 0x00, 0x00, 0x00,
        0x24, 0x50, 0x4C, 0x54, 0x45, 0x00, 0x00, 0xC8, 0xB4, 0xA0, 0xC8, 0x00, 0x50, 0xC8, 0x3C, 0x00, 0xC8, 0x00,
        0xA0, 0xC8, 0x3C, 0x50, 0xC8, 0x78, 0x00, 0xC8, 0x3C, 0xA0, 0xC8, 0x78, 0x50, 0xC8, 0xB4, 0x00, 0xC8, 0x78,
        0xA0, 0xC8, 0xB4, 0x50, 0xC8, 0x34, 0x6C, 0xBA, 0x5D, 0x00, 0x00, 0x00, 0x11, 0x49, 0x44, 0x41, 0x54, 0x08,
        0x99, 0x63, 0x60, 0xCE, 0x64, 0x50, 0xED, 0x66, 0x70, 0x5F, 0x08, 0x00, 0x07, 0x14, 0x02, 0x05, 0x27, 0x2F,
        0x8F, 0x41, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]

    /// The RGBA pixels of `tinyPNG` (as `pngtopam -alphapam` gives them).
    package static let tinyPNGPixels: [UInt8] = (0..<3).flatMap { y in
        (0..<4).flatMap { x in [UInt8(x * 60), UInt8(y * 80), 200, 255] }
    }
}

extension Fixtures {
    /// A fixture file with its reference decode, if it has one.
    package struct File {
        package var name: String
        package var bytes: [UInt8]
        package var truth: NetpbmImage?
    }

    /// The directory of the files `Fixtures/make-fixtures.sh` made.
    package static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("ImageCoreTests/Fixtures")

    /// The bytes of one fixture file.
    package static func bytes(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// Every fixture image, in name order (subdirectories, such as the fuzz
    /// regressions, are not fixtures).
    package static func all() throws -> [File] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            .filter { !$0.contains(".truth.") && !$0.hasSuffix(".sh") }
            .filter { name in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(
                    atPath: directory.appendingPathComponent(name).path, isDirectory: &isDirectory)
                    && !isDirectory.boolValue
            }
        return try names.map { name in
            let bytes = try Self.bytes(name)
            let stem = name.split(separator: ".").dropLast().joined(separator: ".")
            let truthName =
                names.isEmpty
                ? nil
                : ["\(stem).truth.pam", "\(stem).truth.ppm"].first {
                    FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path)
                }
            let truth = try truthName.map {
                try NetpbmImage([UInt8](Data(contentsOf: directory.appendingPathComponent($0))))
            }
            return File(name: name, bytes: bytes, truth: truth)
        }
    }
}
