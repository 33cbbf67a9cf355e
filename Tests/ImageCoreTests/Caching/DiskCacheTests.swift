import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Every test runs with each placement of the records (`RecordPlacement`):
/// in an attribute of the entry's file, and in a file of their own.
@Suite struct DiskCacheTests {
    /// One cache directory, prepared with a placement.
    struct Fixture {
        let root: String
        let directory: CacheDirectory
        let statistics = Statistics()
        let cache: DiskCache
        let key = CacheKey("http://127.0.0.1/a.png")
        let info = ImageInfo(format: .png, width: 2, height: 1)
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 100)
        var record: StoredRecord { StoredRecord(directory, key) }

        init(_ placement: RecordPlacement) throws {
            root = TestRunDirectory.newPath("imgcache-disk-")
            directory = CacheDirectory(root: root)
            let prepared = try directory.prepare(preferring: placement)
            #expect(prepared == placement)
            #expect(directory.recordPlacement() == placement)
            cache = DiskCache(directory: directory, placement: prepared, statistics: statistics)
        }

        func cleanUp() { try? FileManager.default.removeItem(atPath: root) }

        /// Stores `bytes` (with `extra` after them) under `key`.
        @discardableResult
        func store(_ extra: [UInt8] = []) throws -> CachedData {
            try cache.store(
                bytes + extra, temporaryPath: nil, key: key, url: key.string, info: info, response: .init())
        }
    }

    static let placements: [RecordPlacement] = [.attributes, .files]

    /// A directory `prepared()` made holds no entry: until this process
    /// stores a key there, a look-up without the download lock need not ask
    /// the disk. A directory it found prepared gives no such knowledge.
    @Test func aCacheMadeEmptyKnowsWhichKeysItStored() throws {
        let root = TestRunDirectory.newPath("imgcache-disk-")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let directory = CacheDirectory(root: root)
        let prepared = try directory.prepared()
        #expect(prepared.madeEmpty)
        #expect(try !directory.prepared().madeEmpty, "prepared already")
        let cache = DiskCache(
            directory: directory, placement: prepared.placement, statistics: Statistics(), madeEmpty: true)
        let stored = CacheKey("http://127.0.0.1/stored.png")
        let other = CacheKey("http://127.0.0.1/other.png")
        #expect(cache.isKnownAbsent(stored) && cache.isKnownAbsent(other))
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 100)
        _ = try cache.store(
            png, temporaryPath: nil, key: stored, url: stored.string,
            info: ImageInfo(format: .png, width: 2, height: 1),
            response: .init())
        #expect(!cache.isKnownAbsent(stored))
        #expect(cache.isKnownAbsent(other))
        #expect(try cache.lookup(stored)?.bytes == png)
        let reopened = DiskCache(directory: directory, placement: prepared.placement, statistics: Statistics())
        #expect(!reopened.isKnownAbsent(other), "not made by this process: the disk is asked")
    }

    @Test(arguments: placements) func storesAndReadsBackWholeEntries(_ placement: RecordPlacement) throws {
        let fixture = try Fixture(placement)
        let (cache, key, bytes, info) = (fixture.cache, fixture.key, fixture.bytes, fixture.info)
        defer { fixture.cleanUp() }
        let stored = try cache.store(
            bytes, temporaryPath: nil, key: key, url: key.string, info: info,
            response: StoredResponse(etag: "\"e\"", freshUntil: 99))
        let found = try #require(try cache.lookup(key))
        #expect(found.bytes == bytes)
        #expect(found.path == stored.path)
        #expect(found.entry.etag == "\"e\"")
        #expect(found.entry.expires == 99)
        #expect(found.entry.info == info)
        // The data file holds exactly the original bytes, for other tools.
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: found.path))) == bytes)
        #expect(found.path.hasSuffix(".png") == (placement == .files))
        #expect(!found.path.contains("127.0.0.1"))
        // Read again without the bytes, as prefetch and stat do.
        #expect(DiskCache.peek(directory: fixture.directory, key: key)?.checksum == stored.entry.checksum)
    }

    @Test(arguments: placements) func treatsFlippedBytesAsAMissAndRemovesTheEntry(_ placement: RecordPlacement) throws {
        let fixture = try Fixture(placement)
        let (cache, key, bytes) = (fixture.cache, fixture.key, fixture.bytes)
        defer { fixture.cleanUp() }
        let stored = try fixture.store()
        var damaged = bytes
        damaged[50] ^= 0x01
        try Data(damaged).write(to: URL(fileURLWithPath: stored.path))
        #expect(try cache.lookup(key) == nil)
        #expect(fixture.statistics.snapshot[.corruptEntries] == 1)
        #expect(!fixture.record.exists)
    }

    @Test(arguments: placements) func treatsTruncatedOrDamagedMetadataAsAMiss(_ placement: RecordPlacement) throws {
        let fixture = try Fixture(placement)
        let (cache, key) = (fixture.cache, fixture.key)
        defer { fixture.cleanUp() }
        try fixture.store()
        let text = try fixture.record.read()
        try fixture.record.write(Array(text.prefix(text.count / 2)))
        #expect(try cache.lookup(key) == nil)
        #expect(!fixture.record.exists)
        try fixture.store()
        var edited = try fixture.record.read()
        edited[edited.count / 3] ^= 0x20
        try fixture.record.write(edited)
        #expect(try cache.lookup(key) == nil)
        #expect(fixture.statistics.snapshot[.corruptEntries] == 2)
    }

    @Test(arguments: placements) func aRecordOfAnotherVersionIsAMissNotDamage(_ placement: RecordPlacement) throws {
        let fixture = try Fixture(placement)
        let (cache, key, bytes) = (fixture.cache, fixture.key, fixture.bytes)
        defer { fixture.cleanUp() }
        try fixture.store()
        try fixture.record.write(Array("imgcache-entry 3\nkey x\n".utf8))
        #expect(try cache.lookup(key) == nil)
        #expect(fixture.statistics.snapshot[.corruptEntries] == nil)
        #expect(
            try fixture.store()
                .bytes == bytes)
        #expect(try cache.lookup(key)?.bytes == bytes)
    }

    @Test(arguments: placements) func replacingAnEntryRemovesTheOldBytes(_ placement: RecordPlacement) throws {
        let fixture = try Fixture(placement)
        let (cache, key, bytes) = (fixture.cache, fixture.key, fixture.bytes)
        defer { fixture.cleanUp() }
        let first = try fixture.store()
        let second = try fixture.store([1])
        if placement == .files {
            #expect(first.path != second.path)
            #expect(!FileManager.default.fileExists(atPath: first.path))
        }
        let shard = fixture.directory.shard(key.hash)
        #expect(try FileManager.default.contentsOfDirectory(atPath: shard).count == (placement == .files ? 2 : 1))
        #expect(try cache.lookup(key)?.bytes == bytes + [1])
    }

    @Test func aRecordTooLargeForAnAttributeIsNotStored() throws {
        let fixture = try Fixture(.attributes)
        defer { fixture.cleanUp() }
        let url = "http://127.0.0.1/" + String(repeating: "a", count: 70000)
        // The public API throws its one public error type, not an internal one.
        let error = #expect(throws: ImageCoreError.self) {
            _ = try fixture.cache.store(
                fixture.bytes, temporaryPath: nil, key: CacheKey(url), url: url, info: fixture.info, response: .init())
        }
        #expect(error?.kind == .cacheIO)
        #expect(error?.message.contains("too large") == true)
        // Nothing is left behind: no entry, no temporary file.
        let shard = fixture.directory.shard(CacheKey(url).hash)
        #expect(try FileManager.default.contentsOfDirectory(atPath: shard).isEmpty)
    }

    @Test(arguments: placements) func aRecordWrittenBeforeItsBytesWouldBeRejected(_ placement: RecordPlacement) throws {
        // Simulates a crash that left a record naming bytes that never
        // arrived: the lookup is a miss, not an error.
        let fixture = try Fixture(placement)
        let (cache, key) = (fixture.cache, fixture.key)
        defer { fixture.cleanUp() }
        let stored = try fixture.store()
        try FileManager.default.removeItem(atPath: stored.path)
        #expect(try cache.lookup(key) == nil)
    }

    @Test(arguments: placements) func removeDeletesBothFiles(_ placement: RecordPlacement) throws {
        let fixture = try Fixture(placement)
        let (cache, key) = (fixture.cache, fixture.key)
        defer { fixture.cleanUp() }
        let stored = try fixture.store()
        #expect(try cache.remove(key))
        #expect(!FileManager.default.fileExists(atPath: stored.path))
        #expect(try cache.remove(key) == false)
        #expect(!fixture.record.exists)
    }

    @Test(arguments: placements) func aHitRenewsLastUseAtMostOnceAMinute(_ placement: RecordPlacement) throws {
        let fixture = try Fixture(placement)
        let (cache, key) = (fixture.cache, fixture.key)
        defer { fixture.cleanUp() }
        try fixture.store()
        func lastUse() throws -> Date {
            try #require(
                try FileManager.default.attributesOfItem(atPath: fixture.record.path)[.modificationDate] as? Date)
        }
        func setLastUse(_ age: TimeInterval) throws {
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -age)], ofItemAtPath: fixture.record.path)
        }
        // Used 30 s ago: a hit writes nothing, and says when it was.
        try setLastUse(30)
        let recent = try lastUse()
        // Date keeps seconds since 2001 as a Double: equal to a millisecond, not to the bit.
        let reported = try #require(try cache.lookup(key)?.entry.lastUsed)
        #expect(abs(reported - recent.timeIntervalSince1970) < 0.001)
        #expect(try lastUse() == recent)
        guard case .accepted = cache.lookupWithoutBytes(key, accepting: { _ in true }) else {
            Issue.record("a fresh entry was not accepted")
            return
        }
        #expect(try lastUse() == recent)
        // Used 2 minutes ago, or in the future (a clock set back): renewed.
        for age in [120.0, -3600] {
            try setLastUse(age)
            _ = try cache.lookup(key)
            #expect(try lastUse().timeIntervalSinceNow > -5 && lastUse().timeIntervalSinceNow < 1)
        }
    }

    @Test func countersFromSeveralFlushesAddUp() throws {
        let fixture = try Fixture(.attributes)
        let directory = fixture.directory
        defer { fixture.cleanUp() }
        for _ in 0..<3 {
            let statistics = Statistics()
            statistics.add(.downloads, 2)
            statistics.add(.diskHits)
            try statistics.flush(to: directory)
        }
        let totals = Statistics.totals(in: directory)
        #expect(totals[.downloads] == 6)
        #expect(totals[.diskHits] == 3)
    }
}
