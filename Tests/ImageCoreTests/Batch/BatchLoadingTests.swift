import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// The library's batch jobs against a counting loader: `loadInOrder` (fetch
/// of many URLs), `ImagePrefetcher` (prefetch) and the variant name.
@Suite struct BatchLoadingTests {
    let root = TestRunDirectory.newPath("imgcache-batch-")
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 1, count: 40)

    func makeManager(_ answers: [String: CountingLoader.Answer]) throws -> (ImageManager, CountingLoader) {
        let directory = CacheDirectory(root: root)
        try directory.prepare()
        let loader = CountingLoader(directory: directory.temporary, answers: answers)
        return (
            try ImageManager(configuration: .init(directory: directory), decoder: CountingDecoder(), loader: loader),
            loader
        )
    }

    @Test func loadInOrderDeliversEveryResultInInputOrder() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let urls = (0..<12).map { "http://127.0.0.1/\($0).png" }
        let (manager, _) = try makeManager(Dictionary(uniqueKeysWithValues: urls.dropLast().map { ($0, .body(png)) }))
        var delivered: [(Int, ImageLoadResult)] = []
        var completed = Set<Int>()
        await manager.loadInOrder(urls.map(ImageRequest.init(url:)), completed: { completed.insert($0) }) {
            delivered.append(($0, $1))
        }
        #expect(delivered.map(\.0) == Array(0..<12))
        #expect(delivered.map(\.1.url) == urls)
        #expect(completed == Set(0..<12))
        #expect(delivered.dropLast().allSatisfy { (try? $0.1.outcome.get().source) == .downloaded })
        #expect(delivered.last.map { (try? $0.1.outcome.get()) == nil && $0.1.durationMs >= 0 } == true)
    }

    @Test func prefetcherSkipsCommentsCountsDuplicatesAndTalliesOutcomes() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (manager, loader) = try makeManager([
            "http://127.0.0.1/a.png": .body(png), "http://127.0.0.1/b.png": .body(png),
        ])
        let lines = [
            "# list", "", "  http://127.0.0.1/a.png\r", "http://127.0.0.1/b.png", "http://127.0.0.1/a.png",
            "http://127.0.0.1/missing.png",
        ]
        var finished: [String] = []
        let tally = await ImagePrefetcher(manager: manager, window: 1).prefetch(
            AsyncStream { continuation in
                for line in lines { continuation.yield(line) }
                continuation.finish()
            },
            makeRequest: { ImageRequest(url: $0) }, finished: { result, _ in finished.append(result.url) })
        #expect(tally.total == 4)
        #expect(tally.distinct == 3)
        #expect(tally.downloaded == 2)
        #expect(tally.cached == 1)
        #expect(tally.failed == 1)
        #expect(tally.failureKinds == [.http])
        #expect(tally.inputEnded && tally.done == 4)
        #expect(finished.count == 4)
        #expect(loader.requests(for: "http://127.0.0.1/a.png") == 1)
    }

    @Test func aVariantIsNamedByEverySettingThatShapesIt() {
        var rendition = ImageRendition()
        #expect(rendition.variantName == nil)
        #expect(!rendition.needsPixels)
        rendition.scale = .fit(width: 8, height: 8)
        rendition.encoding = .matchingOriginal
        #expect(
            rendition.variantName
                == "thumbnail=8x8,frames=all,encode=original,quality=default,orient=1,colorspace=original")
        rendition.scale = .maxPixels(1000)
        rendition.frame = 2
        rendition.encoding = .format(.webp)
        rendition.quality = 70
        rendition.appliesOrientation = false
        #expect(rendition.variantName == "max-pixels=1000,frame=2,encode=webp,quality=70,orient=0,colorspace=original")
        // A full-size re-encoding is not kept.
        rendition.scale = nil
        #expect(rendition.variantName == nil)
        #expect(rendition.needsPixels)
    }
}
