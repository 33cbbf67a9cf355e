import Foundation
import Testing

@testable import ImageCore

/// `Store` alone over a real cache directory: the rename into the cache,
/// what is not stored, the 304 renewal and the trim to `max-size`.
@Suite struct StoreTests {
    let url = "http://127.0.0.1/a.png"

    @Test func aDownloadIsRenamedIntoTheCacheWithItsRecord() throws {
        let fixture = try PipelineFixture()
        let downloaded = try fixture.downloaded(fixture.png, headers: ["cache-control": "max-age=60"])
        let outcome = fixture.store().store(
            downloaded, bytes: fixture.png, info: fixture.info, ImageRequest(url: url), key: CacheKey(url))
        #expect(outcome.stored?.entry.url == url && outcome.failure == nil)
        #expect(fixture.temporaryFiles.isEmpty)
        #expect(try fixture.disk.lookup(CacheKey(url))?.bytes == fixture.png)
    }

    @Test func noStoreFromEitherSideLeavesTheBodyAndRemovesAnOlderEntry() throws {
        let fixture = try PipelineFixture()
        let store = fixture.store()
        var request = ImageRequest(url: url)
        request.storesToDisk = false
        let unstored = try fixture.downloaded(fixture.png, headers: [:])
        let unasked = store.store(unstored, bytes: fixture.png, info: fixture.info, request, key: CacheKey(url))
        #expect(unasked.stored == nil && unasked.failure == nil)
        #expect(fixture.temporaryFiles.count == 1)
        try fixture.storeEntry(url)
        let forbidden = try fixture.downloaded(fixture.png, headers: ["cache-control": "no-store"])
        let refused = store.store(
            forbidden, bytes: fixture.png, info: fixture.info, ImageRequest(url: url), key: CacheKey(url))
        #expect(refused.stored == nil && refused.failure == nil)
        #expect(try fixture.disk.lookup(CacheKey(url)) == nil)
    }

    @Test func aRenewalKeepsTheBytesAndRenewsTheRecord() throws {
        let fixture = try PipelineFixture()
        let stale = try fixture.storeEntry(url, headers: ["cache-control": "max-age=1"], at: WallClock.now() - 100)
        let now = WallClock.now()
        let response = StoredResponse(
            headers: ["cache-control": "max-age=600"], request: DownloadRequest(url: url), requestTime: now,
            responseTime: now)
        let (renewed, failure) = fixture.store().renew(
            stale, with: response, ImageRequest(url: url), key: CacheKey(url))
        #expect(renewed.bytes == fixture.png && failure == nil)
        let reread = try #require(try fixture.disk.lookup(CacheKey(url)))
        #expect((reread.entry.response.freshUntil ?? 0) > now + 500)
    }

    @Test func storingPastATenthOfMaxSizeTrimsTheCache() throws {
        let fixture = try PipelineFixture()
        let store = fixture.store(maxSize: 1000)
        for index in 0..<6 {
            try fixture.waitForTheFileClockToTick()
            let bytes = fixture.png + Array(repeating: UInt8(index), count: 400)
            let downloaded = try fixture.downloaded(bytes, headers: ["cache-control": "max-age=60"])
            let key = CacheKey("\(url)?\(index)")
            _ = store.store(downloaded, bytes: bytes, info: fixture.info, ImageRequest(url: key.string), key: key)
        }
        store.finish()
        #expect((fixture.counts[.evictions] ?? 0) >= 4)
        let held = (0..<6).filter { (try? fixture.disk.lookup(CacheKey("\(url)?\($0)"))) != nil }
        #expect(held.count <= 2)
        // The newest survives: least recently used goes first.
        #expect(held.contains(5))
    }

    /// Issue 35, class 1: a cache that cannot take the entry is the
    /// outcome's failure, not a thrown error; the caller delivers anyway.
    @Test func aStoreThatCannotWriteSaysWhyAndThrowsNothing() throws {
        let fixture = try PipelineFixture()
        var downloaded = try fixture.downloaded(fixture.png, headers: ["cache-control": "max-age=60"])
        // A body kept in memory (its file could not be written), and a shard that is a file, not a directory.
        try FileManager.default.removeItem(atPath: downloaded.bodyPath)
        downloaded.bodyPath = ""
        let shard = fixture.disk.directory.shard(CacheKey(url).hash)
        try FileManager.default.removeItem(atPath: shard)
        #expect(FileManager.default.createFile(atPath: shard, contents: Data()))
        let outcome = fixture.store().store(
            downloaded, bytes: fixture.png, info: fixture.info, ImageRequest(url: url), key: CacheKey(url))
        #expect(outcome.stored == nil)
        #expect(outcome.failure?.kind == .cacheIO, "\(String(describing: outcome.failure))")
        #expect(outcome.failure?.message.contains(shard) == true, "\(String(describing: outcome.failure?.message))")
    }
}
