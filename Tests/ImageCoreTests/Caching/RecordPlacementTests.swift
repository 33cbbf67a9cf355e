import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Where a cache keeps its records: chosen when it is made, kept across
/// purges, and an earlier version's cache switched without errors.
@Suite struct RecordPlacementTests {
    let root = TestRunDirectory.newPath("imgcache-placement-")
    var directory: CacheDirectory { CacheDirectory(root: root) }
    let info = ImageInfo(format: .png, width: 2, height: 1)
    let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 3, count: 500)

    private func cleanUp() { try? FileManager.default.removeItem(atPath: root) }

    private func store(_ url: String, in cache: DiskCache, extra: Int = 0) throws -> CachedData {
        try cache.store(
            bytes + Array(repeating: 1, count: extra), temporaryPath: nil, key: CacheKey(url), url: url, info: info,
            response: .init())
    }

    @Test func aNewCacheKeepsRecordsInAttributesAndSaysSo() throws {
        defer { cleanUp() }
        #expect(try directory.prepare() == .attributes)
        #expect(try directory.prepare() == .attributes)
        #expect(directory.recordPlacement() == .attributes)
        let cache = DiskCache(directory: directory, statistics: Statistics())
        let stored = try store("http://127.0.0.1/a.png", in: cache)
        // One file per entry, holding exactly the bytes.
        #expect(
            try FileManager.default.contentsOfDirectory(
                atPath: directory.shard(CacheKey("http://127.0.0.1/a.png").hash)) == [
                    CacheKey("http://127.0.0.1/a.png").hash
                ])
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: stored.path))) == bytes)
    }

    @Test func aPurgeKeepsThePlacement() throws {
        defer { cleanUp() }
        #expect(try directory.prepare(preferring: .files) == .files)
        try CachePurger(directory: directory).purgeEverything()
        #expect(directory.recordPlacement() == .files)
        #expect(try directory.prepare() == .files)
    }

    @Test func anEarlierVersionsCacheIsSwitchedAndItsEntriesBecomeStrays() throws {
        defer { cleanUp() }
        // What an earlier version made: shards without a mark, an entry in two files.
        for name in CacheDirectory.shardNames {
            try FileManager.default.createDirectory(
                atPath: "\(directory.entries)/\(name)", withIntermediateDirectories: true)
        }
        let old = DiskCache(directory: directory, placement: .files, statistics: Statistics())
        _ = try store("http://127.0.0.1/old.png", in: old)
        #expect(try old.lookup(CacheKey("http://127.0.0.1/old.png")) != nil)

        #expect(try directory.prepare() == .attributes)
        let statistics = Statistics()
        let cache = DiskCache(directory: directory, statistics: statistics)
        #expect(try cache.lookup(CacheKey("http://127.0.0.1/old.png")) == nil)
        #expect(statistics.snapshot[.corruptEntries] == nil)
        #expect(CacheSummary.read(directory).entries == 0)
        _ = try store("http://127.0.0.1/new.png", in: cache)
        #expect(CacheSummary.read(directory).entries == 1)
        // The old files are strays: kept an hour (a process of the old version may be writing), then removed.
        let cleaner = CacheCleaner(directory: directory)
        #expect(try cleaner.clean(maxAge: nil, maxSize: nil).strayFilesRemoved == 0)
        let later = try cleaner.clean(
            maxAge: nil, maxSize: nil, now: WallClock.now() + 2 * CacheCleaner.strayGracePeriod)
        #expect(later.strayFilesRemoved == 2)
        #expect(later.entriesLeft == 1)
        #expect(try cache.lookup(CacheKey("http://127.0.0.1/new.png"))?.bytes == bytes)
    }

    @Test(arguments: [RecordPlacement.attributes, .files])
    func cleanCountsAnEntrysBytesAndVariantsOnce(_ placement: RecordPlacement) throws {
        defer { cleanUp() }
        try directory.prepare(preferring: placement)
        let cache = DiskCache(directory: directory, statistics: Statistics())
        let kept = try store("http://127.0.0.1/kept.png", in: cache)
        let aged = try store("http://127.0.0.1/aged.png", in: cache, extra: 100)
        try cache.variants.store(
            [1, 2, 3, 4], transform: "thumbnail=1x1", fileExtension: "png", of: aged.entry,
            key: CacheKey("http://127.0.0.1/aged.png"))
        let summary = CacheSummary.read(directory)
        #expect(summary.entries == 2)
        #expect(summary.bytes == kept.bytes.count + aged.bytes.count + 4)
        let record = StoredRecord(directory, CacheKey("http://127.0.0.1/aged.png"))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -10 * 86_400)], ofItemAtPath: record.path)
        let report = try CacheCleaner(directory: directory).clean(maxAge: 7 * 86_400, maxSize: nil)
        #expect(report.expiredEntries == 1)
        #expect(report.bytesRemoved == aged.bytes.count + 4)
        #expect(report.entriesLeft == 1 && report.bytesLeft == kept.bytes.count)
        let left = try FileManager.default.contentsOfDirectory(
            atPath: directory.shard(CacheKey("http://127.0.0.1/aged.png").hash))
        #expect(!left.contains { $0.hasPrefix(CacheKey("http://127.0.0.1/aged.png").hash) }, "\(left)")
        #expect(try cache.lookup(CacheKey("http://127.0.0.1/kept.png"))?.bytes == bytes)
    }
}
