import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// `GIFStructure`, the walk a downloaded GIF must pass before it is stored,
/// held to giflib's decode: the same header facts, every cut rejected, and
/// nothing giflib decodes rejected.
struct GIFStructureTests {
    static let files = [
        "gif_anim_dispose2-bg_transparency_zero-delays_gdk-aero.gif",
        "gif_anim_loop2_varied-delays_sixel-seq2gif.gif", "gif_interlaced_go-video001.gif",
        "gif_static_go-video001.gif",
    ]

    /// The facts giflib's decode gives.
    func decoded(_ bytes: [UInt8]) throws -> ImageInfo {
        let image = try GIFDecoder(limits: .default).decode(bytes)
        let animated = image.frames.count > 1
        return ImageInfo(
            format: .gif, width: image.width, height: image.height, frameCount: image.frames.count,
            loopCount: animated ? image.loopCount : nil,
            frameDurations: animated ? image.frames.map(\.durationMilliseconds) : [])
    }

    @Test(.enabled(if: Corpus.directory != nil, Corpus.missing), arguments: files)
    func theWalkReadsWhatGiflibDecodes(file: String) throws {
        let bytes = try Corpus.bytes("images/\(file)")
        #expect(try GIFStructure.read(bytes, limits: .default) == decoded(bytes))
    }

    /// Every prefix that stops before the trailer is a partial body: never stored.
    @Test(.enabled(if: Corpus.directory != nil, Corpus.missing), arguments: files)
    func everyCutIsRejected(file: String) throws {
        let bytes = try Corpus.bytes("images/\(file)")
        #expect(bytes.last == 0x3B)
        var accepted: [Int] = []
        for length in 0..<bytes.count {
            do {
                _ = try GIFStructure.read(Array(bytes.prefix(length)), limits: .default)
                accepted.append(length)
            } catch let error as ImageCoreError {
                #expect(error.kind == .image)
            }
        }
        #expect(accepted.isEmpty, "prefixes of \(file) accepted: \(accepted.prefix(5))")
    }

    /// Single-byte corruptions: whatever giflib decodes, the walk accepts
    /// with the same facts (the walk does not decode the LZW data, so it may
    /// accept more, as giflib's own skip did).
    @Test(.enabled(if: Corpus.directory != nil, Corpus.missing), arguments: files)
    func corruptionsGiflibDecodesPassTheWalk(file: String) throws {
        let original = try Corpus.bytes("images/\(file)")
        var generator = SplitMix(seed: UInt64(original.count))
        var decodedCount = 0
        for _ in 0..<200 {
            var copy = original
            // Most of a GIF is LZW data; damage the first 2 KiB, where the structure is, half the time.
            let range = generator.next() % 2 == 0 ? min(2048, copy.count) : copy.count
            copy[Int(generator.next() % UInt64(range))] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
            guard let expected = try? decoded(copy) else { continue }
            decodedCount += 1
            #expect(try GIFStructure.read(copy, limits: .default) == expected)
        }
        #expect(decodedCount > 0)
    }
}
