import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// HEIC thumbnails decoded on several threads (a grid's tiles on workers of
/// ours, a single image on libde265's own): the bytes of one thread, and
/// no thumbnail for damaged data on any number.
extension HEVCThumbnailTests {
    /// A grid's tiles decoded on several workers, finishing in any order,
    /// give the bytes one worker gives: the strips are shrunk in tile
    /// order with the same arithmetic. 12 tiles of 64 × 64 (heif-enc 1.15
    /// codes nothing smaller as one image; the right column and bottom row
    /// cropped); thumbnails whose output rows straddle strips (100 × 68),
    /// and one whose rows each span more than a strip (5 × 2), so that
    /// strips are kept for rows still to come.
    @Test func aGridOnManyWorkersGivesTheBytesOfOne() throws {
        let heic = try HEIFSamples.grid(
            of: try colourBars(), width: 250, height: 170, rows: 3, columns: 4, tileWidth: 64, tileHeight: 64,
            in: work)
        let items = try #require(HEIFItems(heic))
        for size in [(100, 68), (250, 170), (31, 17), (5, 2)] {
            let plan = try #require(HEVCThumbnail(heic, items: items, size: size), "libheif's path was taken")
            let one = try #require(plan.thumbnail(heic, size: size, workers: .init(count: 1)))
            for workers in [2, 3, 5, 12] {
                let many = try #require(plan.thumbnail(heic, size: size, workers: .init(count: workers)))
                #expect(many == one, "\(workers) workers at \(size): other bytes than one worker's")
            }
            let difference = largestDifference(one, try referenceThumbnail(heic, size: size))
            #expect(difference <= Self.tolerance, "12 tiles at \(size): differs by \(difference)")
        }
    }

    /// A tile libde265 cannot decode, while other workers decode theirs or
    /// wait for a permit to take the next: no thumbnail (libheif's path is
    /// taken), on any number of workers, and every worker ends (the test
    /// would hang on the join otherwise). The last tiles' coded data, at the
    /// end of the file, is written over.
    @Test func aDamagedTileOnManyWorkersGivesNoThumbnail() throws {
        var heic = try HEIFSamples.grid(
            of: try colourBars(), width: 250, height: 170, rows: 3, columns: 4, tileWidth: 64, tileHeight: 64,
            in: work)
        let items = try #require(HEIFItems(heic))
        for index in stride(from: heic.count * 3 / 4, to: heic.count, by: 3) { heic[index] = 0xFF }
        let plan = try #require(HEVCThumbnail(heic, items: items, size: (100, 68)))
        for workers in [1, 2, 3, 5, 12] {
            #expect(plan.thumbnail(heic, size: (100, 68), workers: .init(count: workers)) == nil, "\(workers) workers")
        }
    }

    /// A single image decoded by libde265 on its own worker threads (heif-enc
    /// codes with wavefronts: rows of CTBs in parallel) gives the bytes the
    /// calling thread alone gives; a damaged one gives none on any number,
    /// and the threads end (the test would hang on their join otherwise).
    @Test func anImageOnLibde265sThreadsGivesTheBytesOfOne() throws {
        var heic = try HEIFSamples.encode(try colourBars(), options: "-q 50", in: work)
        let items = try #require(HEIFItems(heic))
        for size in [(100, 68), (250, 170), (5, 2)] {
            let plan = try #require(HEVCThumbnail(heic, items: items, size: size), "libheif's path was taken")
            let one = try #require(plan.thumbnail(heic, size: size, workers: .init(count: 1)))
            for workers in [2, 3, 8] {
                let many = try #require(plan.thumbnail(heic, size: size, workers: .init(count: workers)))
                #expect(many == one, "\(workers) threads at \(size): other bytes than the calling thread's")
            }
        }
        for index in stride(from: heic.count * 3 / 4, to: heic.count, by: 3) { heic[index] = 0xFF }
        let plan = try #require(HEVCThumbnail(heic, items: items, size: (100, 68)))
        for workers in [1, 2, 3, 8] {
            #expect(plan.thumbnail(heic, size: (100, 68), workers: .init(count: workers)) == nil, "\(workers) threads")
        }
    }

    /// Threads only where they pay: one for each two 512 × 512 tiles'
    /// worth of pixels at most, never more than a grid's tiles or the CPUs'
    /// share (a single image's are libde265's); a small image or grid
    /// decodes on the calling thread.
    @Test func workersFollowTheGridsSizeAndTheCPUsShare() {
        let photo = 4032 * 3024
        #expect(HEVCThumbnail.workers(share: 8, tiles: 1, pixels: photo) == 8)
        #expect(HEVCThumbnail.workers(share: 2, tiles: 1, pixels: photo) == 2)
        #expect(HEVCThumbnail.workers(share: 8, tiles: 1, pixels: 640 * 480) == 1)
        #expect(HEVCThumbnail.workers(share: 8, tiles: 4, pixels: 240 * 160) == 1)
        #expect(HEVCThumbnail.workers(share: 8, tiles: 2, pixels: 2 * 512 * 512) == 1)
        #expect(HEVCThumbnail.workers(share: 8, tiles: 4, pixels: 4 * 512 * 512) == 2)
        #expect(HEVCThumbnail.workers(share: 2, tiles: 48, pixels: photo) == 2)
        #expect(HEVCThumbnail.workers(share: 8, tiles: 48, pixels: photo) == 8)
        #expect(HEVCThumbnail.workers(share: 1, tiles: 48, pixels: photo) == 1)
    }
}
