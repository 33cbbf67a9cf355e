import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImageCore

/// A loader that serves canned bodies from memory and counts what it was
/// asked, so the manager's logic can be tested without a network.
final class CountingLoader: DataLoading {
    enum Answer: Sendable {
        case body([UInt8])
        case failure(ImageCoreError)
    }

    let answers: [String: Answer]
    let directory: String
    let delay: Duration
    private let counts = Mutex<[String: Int]>([:])

    init(directory: String, answers: [String: Answer], delay: Duration = .zero) {
        self.directory = directory
        self.answers = answers
        self.delay = delay
    }

    private let seamCalls = Mutex<(cancels: Int, closes: Int)>((0, 0))

    func requests(for url: String) -> Int { counts.withLock { $0[url, default: 0] } }
    /// How often `cancelAll` and `close` were called.
    var cancels: Int { seamCalls.withLock { $0.cancels } }
    var closes: Int { seamCalls.withLock { $0.closes } }

    func cancelAll() { seamCalls.withLock { $0.cancels += 1 } }
    func close() { seamCalls.withLock { $0.closes += 1 } }

    func download(_ request: DownloadRequest) async throws -> DownloadResponse {
        counts.withLock { $0[request.url, default: 0] += 1 }
        if delay > .zero { try await Task.sleep(for: delay) }
        switch answers[request.url] {
        case .body(let bytes):
            let path = "\(directory)/\(UUID().uuidString).part"
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            let now = WallClock.now()
            return DownloadResponse(
                status: 200, effectiveURL: request.url, headers: ["etag": "\"x\"", "cache-control": "max-age=3600"],
                bodyPath: path, bodySize: bytes.count, requestTime: now, responseTime: now)
        case .failure(let error):
            throw error
        case nil:
            throw ImageCoreError.httpStatus(404)
        }
    }
}

/// A decoder that accepts anything starting with a PNG signature and counts decodes.
final class CountingDecoder: ImageDecoding {
    private let decodes = Atomic<Int>(0)
    var decodeCount: Int { decodes.load(ordering: .relaxed) }
    // Its one-pixel images have no orientation or profile to apply.
    let appliesOrientation = true
    let colourSpace = ColourSpace.original
    func with(appliesOrientation: Bool, colourSpace: ColourSpace) -> CountingDecoder { self }

    func inspect(_ bytes: [UInt8]) throws -> ImageInfo {
        guard ImageFormat.sniff(bytes) == .supported(.png) else { throw ImageCoreError(.image, "not an image") }
        return ImageInfo(format: .png, width: 1, height: 1)
    }

    func decode(_ bytes: [UInt8], frame: Int?, scale: ScaleTarget?) throws -> DecodedImage {
        _ = try inspect(bytes)
        decodes.add(1, ordering: .relaxed)
        return DecodedImage(format: .png, width: 1, height: 1, frames: [.init(pixels: [1, 2, 3, 255])])
    }
}

@Suite struct ImageManagerTests {
    let root = TestRunDirectory.newPath("imgcache-manager-")
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 1, count: 40)

    func makeManager(
        _ answers: [String: CountingLoader.Answer], delay: Duration = .zero,
        decoder: CountingDecoder = CountingDecoder()
    ) throws -> (ImageManager, CountingLoader) {
        let directory = CacheDirectory(root: root)
        try directory.prepare()
        let loader = CountingLoader(directory: directory.temporary, answers: answers, delay: delay)
        let manager = try ImageManager(configuration: .init(directory: directory), decoder: decoder, loader: loader)
        return (manager, loader)
    }

    @Test func looksInMemoryThenDiskThenNetwork() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let url = "http://127.0.0.1/a.png"
        let (manager, loader) = try makeManager([url: .body(png)])
        #expect(try await manager.load(ImageRequest(url: url)).source == .downloaded)
        #expect(try await manager.load(ImageRequest(url: url)).source == .memory)
        // A second process shares only the disk.
        let (other, otherLoader) = try makeManager([url: .body(png)])
        let fromDisk = try await other.load(ImageRequest(url: url))
        #expect(fromDisk.source == .disk)
        #expect(fromDisk.bytes == png)
        #expect(loader.requests(for: url) == 1)
        #expect(otherLoader.requests(for: url) == 0)
    }

    /// A manager that made the cache takes a key it has not stored as
    /// absent without asking the disk (`DiskCache.isKnownAbsent`), yet an
    /// entry another process stored meanwhile is found under the download
    /// lock, and not downloaded again.
    @Test func aCacheMadeHereStillFindsAnotherProcesssEntry() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let url = "http://127.0.0.1/shared.png"
        let directory = CacheDirectory(root: root)
        let loader = CountingLoader(directory: directory.temporary, answers: [url: .body(png)])
        let madeHere = try ImageManager(
            configuration: .init(directory: directory), decoder: CountingDecoder(), loader: loader)
        let (other, otherLoader) = try makeManager([url: .body(png)])
        #expect(try await other.load(ImageRequest(url: url)).source == .downloaded)
        let found = try await madeHere.load(ImageRequest(url: url))
        #expect(found.source == .disk)
        #expect(found.bytes == png)
        #expect(loader.requests(for: url) == 0)
        #expect(otherLoader.requests(for: url) == 1)
    }

    @Test func coalescesConcurrentLoadsOfOneURL() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let url = "http://127.0.0.1/slow.png"
        let (manager, loader) = try makeManager([url: .body(png)], delay: .milliseconds(200))
        let sources = try await withThrowingTaskGroup(of: ImageResponse.Source.self) { group in
            for _ in 0..<8 { group.addTask { try await manager.load(ImageRequest(url: url)).source } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(sources.count == 8)
        #expect(loader.requests(for: url) == 1)
    }

    @Test func remembersPermanentFailuresOnly() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let missing = "http://127.0.0.1/missing.png"
        let flaky = "http://127.0.0.1/flaky.png"
        let page = "http://127.0.0.1/page.png"
        let (manager, loader) = try makeManager([
            flaky: .failure(.httpStatus(503)), page: .body(Array("<!DOCTYPE html><html>".utf8)),
        ])
        var once = ImageRequest(url: flaky)
        once.retries = 0
        for request in [ImageRequest(url: missing), once, ImageRequest(url: page)] {
            await #expect(throws: ImageCoreError.self) { try await manager.load(request) }
        }
        await #expect(throws: ImageCoreError.self) { try await manager.load(ImageRequest(url: missing)) }
        await #expect(throws: ImageCoreError.self) { try await manager.load(once) }
        do {
            _ = try await manager.load(ImageRequest(url: page))
            Issue.record("expected a failed-before error")
        } catch let error as ImageCoreError {
            #expect(error.kind == .failedBefore)
        }
        #expect(loader.requests(for: missing) == 1)
        #expect(loader.requests(for: page) == 1)
        #expect(loader.requests(for: flaky) == 2)
        var retry = ImageRequest(url: missing)
        retry.retriesFailed = true
        await #expect(throws: ImageCoreError.self) { try await manager.load(retry) }
        #expect(loader.requests(for: missing) == 2)
        // Nothing of the HTML page was stored.
        #expect(
            try DiskCache(directory: CacheDirectory(root: root), statistics: Statistics())
                .lookup(CacheKey(page)) == nil)
    }

    @Test func offlineMissIsNotCached() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (manager, loader) = try makeManager([:])
        var request = ImageRequest(url: "http://127.0.0.1/x.png")
        request.network = .offline
        do {
            _ = try await manager.load(request)
            Issue.record("expected not-cached")
        } catch let error as ImageCoreError {
            #expect(error.kind == .notCached)
        }
        #expect(loader.requests(for: "http://127.0.0.1/x.png") == 0)
    }

    @Test func noStoreKeepsTheDiskEmptyAndTheTemporaryAreaClean() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let url = "http://127.0.0.1/a.png"
        let (manager, _) = try makeManager([url: .body(png)])
        var request = ImageRequest(url: url)
        request.storesToDisk = false
        let response = try await manager.load(request)
        #expect(response.path == nil)
        #expect(response.bytes == png)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(root)/tmp").isEmpty)
        #expect(
            try DiskCache(directory: CacheDirectory(root: root), statistics: Statistics()).lookup(CacheKey(url)) == nil)
    }

    /// An injected loader is cancelled and closed through the seam, as the
    /// built-in downloader is.
    @Test func cancelAndFinishReachAnInjectedLoader() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let url = "http://127.0.0.1/a.png"
        let (manager, loader) = try makeManager([url: .body(png)])
        manager.cancelAll()
        #expect(loader.cancels == 1)
        do {
            _ = try await manager.load(ImageRequest(url: url))
            Issue.record("expected interrupted")
        } catch let error as ImageCoreError {
            #expect(error.kind == .interrupted)
        }
        #expect(loader.requests(for: url) == 0)
        try await manager.finish()
        #expect(loader.closes == 1)
    }

    @Test func decodesOnceForRepeatedLoadsInOneProcess() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let url = "http://127.0.0.1/a.png"
        let decoder = CountingDecoder()
        let (manager, _) = try makeManager([url: .body(png)], decoder: decoder)
        var request = ImageRequest(url: url)
        request.decodesPixels = true
        _ = try await manager.load(request)
        let second = try await manager.load(request)
        #expect(second.source == .memory)
        #expect(second.image?.frames.first?.pixels == [1, 2, 3, 255])
        #expect(decoder.decodeCount == 1)
    }
}
