import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Every real image of the shared corpus, decoded and compared pixel for
/// pixel with what the libraries' own reference tools produced.
@Suite(.enabled(if: Corpus.directory != nil, "../shared/corpus is not present"))
struct CorpusPixelTests {
    static let stills = Corpus.manifest("MANIFEST.tsv").filter { ($0["frames"] ?? "1") == "1" }
    static let animations = Corpus.manifest("MANIFEST.tsv").filter { ($0["frames"] ?? "1") != "1" }

    @Test(arguments: stills.map { $0["file"]! })
    func stillImageMatchesTheReferenceDecoder(file: String) throws {
        let row = try #require(Self.stills.first { $0["file"] == file })
        let bytes = try Corpus.bytes("images/\(file)")
        // The truth files hold the stored orientation; `.oriented.ppm` the upright one.
        let decoder = ImageDecoder(appliesOrientation: false)
        let info = try decoder.inspect(bytes)
        #expect(info.width == Int(row["width"] ?? ""))
        #expect(info.height == Int(row["height"] ?? ""))
        let image = try decoder.decode(bytes, frame: nil)
        #expect(image.frames.count == 1)
        let pixels = image.frames[0].pixels
        if let truthFile = row["truth_file"], !truthFile.isEmpty,
            let truthBytes = try? Corpus.bytes(truthFile)
        {
            let truth = try NetpbmImage(truthBytes)
            #expect(truth.width == image.width && truth.height == image.height)
            #expect(truth.matches(pixels), "pixels differ from \(truthFile)")
            let orientedFile = String(truthFile.dropLast(4)) + ".oriented.ppm"
            if truthFile.hasSuffix(".ppm"), let orientedBytes = try? Corpus.bytes(orientedFile) {
                let oriented = try NetpbmImage(orientedBytes)
                let upright = try ImageDecoder().decode(bytes, frame: nil)
                #expect(info.orientation != 1)
                #expect(oriented.width == upright.width && oriented.height == upright.height)
                #expect(oriented.matches(upright.frames[0].pixels), "pixels differ from \(orientedFile)")
            }
        } else if let expected = row["truth_sha256"], !expected.isEmpty {
            // Large truths are stored as a hash of the reference tool's whole output file.
            let output = try encode(image, as: row["truth_format"]?.hasPrefix("PPM") == true ? .ppm : .pam)
            let digest = Digest.sha256Hex(output)
            let rgb = try encode(image, as: .ppm)
            let rgbDigest = Digest.sha256Hex(rgb)
            #expect(digest == expected || rgbDigest == expected, "\(file): output hash differs from the reference")
        }
    }

    @Test(arguments: animations.map { $0["file"]! })
    func animationMatchesBrowserCompositing(file: String) throws {
        let truthText = try Corpus.bytes("anim_truth.json")
        let truth = try #require(try JSONSerialization.jsonObject(with: Data(truthText)) as? [String: Any])
        let expected = try #require(truth[file] as? [String: Any])
        let hashes = try #require(expected["frame_sha256_rgba_zeroed_transparent"] as? [String])
        let image = try ImageDecoder().decode(Corpus.bytes("images/\(file)"), frame: nil)
        #expect(image.frames.count == hashes.count)
        #expect(image.width == expected["width"] as? Int)
        #expect(image.height == expected["height"] as? Int)
        for (index, frame) in image.frames.enumerated() where index < hashes.count {
            let digest = Digest.sha256Hex(NetpbmImage.zeroingTransparent(frame.pixels))
            #expect(digest == hashes[index], "\(file) frame \(index)")
        }
        let row = try #require(Self.animations.first { $0["file"] == file })
        if let durations = row["durations_ms"], !durations.isEmpty {
            let expectedDurations = durations.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == " " }).compactMap
            { Int($0) }
            #expect(image.frames.map(\.durationMilliseconds) == expectedDurations)
        }
    }
}
