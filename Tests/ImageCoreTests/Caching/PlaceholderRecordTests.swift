import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// `--placeholder`'s values are kept in the entry's record (one read per
/// warm entry), with each placement of the records.
@Suite struct PlaceholderRecordTests {
    typealias Fixture = DiskCacheTests.Fixture
    let png = Fixtures.tinyPNG

    func store(_ fixture: Fixture) throws -> CachedData {
        try fixture.cache.store(
            png, temporaryPath: nil, key: fixture.key, url: fixture.key.string,
            info: ImageInfo(format: .png, width: 3, height: 3), response: .init())
    }

    @Test(arguments: DiskCacheTests.placements) func computedOnceThenReadFromTheRecord(
        _ placement: RecordPlacement
    ) throws {
        let fixture = try Fixture(placement)
        defer { fixture.cleanUp() }
        let stored = try store(fixture)
        let placeholders = PlaceholderStore(disk: fixture.cache, limits: .default)
        let made = try placeholders.placeholder(of: stored.entry, key: fixture.key, keeping: true)
        #expect(made == (try PlaceholderStore.compute(png, limits: .default)))
        let entry = try #require(DiskCache.peek(directory: fixture.directory, key: fixture.key))
        #expect(entry.placeholder == made)
        #expect(entry.variants.isEmpty)
        // Read back from the record: with the bytes gone, nothing could be computed.
        #expect(try POSIXFile.remove(try #require(entry.path)))
        #expect(try placeholders.placeholder(of: entry, key: fixture.key, keeping: true) == made)
        // Not kept where the caller may not store.
        let other = try Fixture(placement)
        defer { other.cleanUp() }
        let plain = try store(other)
        _ = try PlaceholderStore(disk: other.cache, limits: .default).placeholder(
            of: plain.entry, key: other.key, keeping: false)
        #expect(DiskCache.peek(directory: other.directory, key: other.key)?.placeholder == nil)
    }

    @Test(arguments: DiskCacheTests.placements) func newBytesLeaveTheOldPlaceholderBehind(
        _ placement: RecordPlacement
    ) throws {
        let fixture = try Fixture(placement)
        defer { fixture.cleanUp() }
        let stored = try store(fixture)
        _ = try PlaceholderStore(disk: fixture.cache, limits: .default).placeholder(
            of: stored.entry, key: fixture.key, keeping: true)
        try fixture.store()
        #expect(try fixture.cache.lookup(fixture.key)?.entry.placeholder == nil)
        // A placeholder computed for the bytes before is not put on the new entry.
        try fixture.cache.variants.storePlaceholder(
            ImagePlaceholder(thumbHash: "k0oG", blurHash: "L00000fQfQfQ", dominantColour: "#000000"),
            of: stored.entry, key: fixture.key)
        #expect(try fixture.cache.lookup(fixture.key)?.entry.placeholder == nil)
    }

    /// An entry an earlier version gave a `placeholder` variant file: the
    /// placeholder is computed once more and kept in the record, and the file goes.
    @Test(arguments: DiskCacheTests.placements) func anEarlierVersionsPlaceholderFileIsReplaced(
        _ placement: RecordPlacement
    ) throws {
        let fixture = try Fixture(placement)
        defer { fixture.cleanUp() }
        let stored = try store(fixture)
        try fixture.cache.variants.store(
            Array("thumbhash k0oG\nblurhash L00000fQfQfQ\ndominant_color #000000\n".utf8),
            transform: EntryVariants.placeholderVariant, fileExtension: "placeholder", of: stored.entry,
            key: fixture.key)
        let earlier = try #require(DiskCache.peek(directory: fixture.directory, key: fixture.key))
        let file = "\(fixture.directory.shard(fixture.key.hash))/\(try #require(earlier.variants.first).fileName)"
        #expect(FileManager.default.fileExists(atPath: file))
        let made = try PlaceholderStore(disk: fixture.cache, limits: .default).placeholder(
            of: earlier, key: fixture.key, keeping: true)
        #expect(made == (try PlaceholderStore.compute(png, limits: .default)))
        let entry = try #require(DiskCache.peek(directory: fixture.directory, key: fixture.key))
        #expect(entry.placeholder == made && entry.variants.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func recordLinesReadBackAndMalformedOnesReadAsNone() throws {
        var entry = CacheEntry(
            key: "k", url: "http://127.0.0.1/a.png", info: ImageInfo(format: .png, width: 1, height: 1),
            byteCount: 1, checksum: String(repeating: "0", count: 32), storedAt: 1, dataFileName: "d")
        entry.placeholder = ImagePlaceholder(
            thumbHash: "k0oG+/==", blurHash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj", dominantColour: "#a1b2c3")
        #expect(CacheEntry(parsing: entry.serialized()) == entry)
        // A record of version 4 without the line is read as before, with none.
        var without = entry
        without.placeholder = nil
        #expect(CacheEntry(parsing: without.serialized())?.placeholder == nil)
        #expect(ImagePlaceholder(recordValue: "a b #12345") == nil)
        #expect(ImagePlaceholder(recordValue: "a b c #123456") == nil)
        #expect(ImagePlaceholder(recordValue: " b #123456") == nil)
    }
}
