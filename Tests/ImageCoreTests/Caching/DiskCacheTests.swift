import Foundation
import Testing

@testable import ImageCore

@Suite struct DiskCacheTests {
    let root: String
    let directory: CacheDirectory
    let statistics = Statistics()
    let cache: DiskCache
    let key = CacheKey("http://127.0.0.1/a.png")
    let info = ImageInfo(format: .png, width: 2, height: 1)
    let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 100)

    init() throws {
        root = NSTemporaryDirectory() + "imgcache-disk-\(UUID().uuidString)"
        directory = CacheDirectory(root: root)
        try directory.prepare()
        cache = DiskCache(directory: directory, statistics: statistics)
    }

    private func cleanUp() { try? FileManager.default.removeItem(atPath: root) }

    @Test func storesAndReadsBackWholeEntries() throws {
        defer { cleanUp() }
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
        #expect(found.path.hasSuffix(".png"))
        #expect(!found.path.contains("127.0.0.1"))
    }

    @Test func treatsFlippedBytesAsAMissAndRemovesTheEntry() throws {
        defer { cleanUp() }
        let stored = try cache.store(
            bytes, temporaryPath: nil, key: key, url: key.string, info: info, response: .init())
        var damaged = bytes
        damaged[50] ^= 0x01
        try Data(damaged).write(to: URL(fileURLWithPath: stored.path))
        #expect(try cache.lookup(key) == nil)
        #expect(statistics.snapshot[.corruptEntries] == 1)
        #expect(!FileManager.default.fileExists(atPath: directory.metadataPath(key.hash)))
    }

    @Test func treatsTruncatedOrDamagedMetadataAsAMiss() throws {
        defer { cleanUp() }
        _ = try cache.store(bytes, temporaryPath: nil, key: key, url: key.string, info: info, response: .init())
        let metadata = directory.metadataPath(key.hash)
        let text = try Data(contentsOf: URL(fileURLWithPath: metadata))
        try text.prefix(text.count / 2).write(to: URL(fileURLWithPath: metadata))
        #expect(try cache.lookup(key) == nil)
        _ = try cache.store(bytes, temporaryPath: nil, key: key, url: key.string, info: info, response: .init())
        var edited = try Data(contentsOf: URL(fileURLWithPath: metadata))
        edited[edited.count / 3] ^= 0x20
        try edited.write(to: URL(fileURLWithPath: metadata))
        #expect(try cache.lookup(key) == nil)
    }

    @Test func replacingAnEntryRemovesTheOldBytes() throws {
        defer { cleanUp() }
        let first = try cache.store(bytes, temporaryPath: nil, key: key, url: key.string, info: info, response: .init())
        let second = try cache.store(
            bytes + [1], temporaryPath: nil, key: key, url: key.string, info: info, response: .init())
        #expect(first.path != second.path)
        #expect(!FileManager.default.fileExists(atPath: first.path))
        #expect(try cache.lookup(key)?.bytes == bytes + [1])
    }

    @Test func aRecordWrittenBeforeItsBytesWouldBeRejected() throws {
        // Simulates a crash that left a record naming bytes that never
        // arrived: the lookup is a miss, not an error.
        defer { cleanUp() }
        let stored = try cache.store(
            bytes, temporaryPath: nil, key: key, url: key.string, info: info, response: .init())
        try FileManager.default.removeItem(atPath: stored.path)
        #expect(try cache.lookup(key) == nil)
    }

    @Test func removeDeletesBothFiles() throws {
        defer { cleanUp() }
        let stored = try cache.store(
            bytes, temporaryPath: nil, key: key, url: key.string, info: info, response: .init())
        #expect(try cache.remove(key))
        #expect(!FileManager.default.fileExists(atPath: stored.path))
        #expect(try cache.remove(key) == false)
    }

    @Test func countersFromSeveralFlushesAddUp() throws {
        defer { cleanUp() }
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
