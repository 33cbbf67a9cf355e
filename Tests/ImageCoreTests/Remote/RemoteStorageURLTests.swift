import TestSupport
import Testing

@testable import ImageCore

/// The `remote-storage` syntax (ccache's), credential masking, and the
/// remote object's layout.
struct RemoteStorageURLTests {
    @Test func attributesFollowTheURL() throws {
        let storage = try RemoteStorageURL(
            parsing: "http://cache.local:8080/img|read-only|connect-timeout=250|timeout=3000")
        #expect(storage.scheme == .http)
        #expect(storage.readOnly)
        #expect(storage.connectTimeout == 0.25)
        #expect(storage.timeout == 3)
        #expect(storage.url == "http://cache.local:8080/img")
    }

    @Test func defaultsAreCcachesAndAListIsSpaceSeparated() throws {
        let list = try RemoteStorageURL.parseList("redis://localhost   https://a.example/c|read-only")
        #expect(list.map(\.scheme) == [.redis, .http])
        #expect(list[0].connectTimeout == 0.1 && list[0].timeout == 1 && !list[0].readOnly)
        #expect(list[1].readOnly)
    }

    @Test(arguments: ["ftp://host/x", "http://", "redis://h|ttl=3", "redis://h|timeout=-1", "redis://h|read-only=1"])
    func badSpecificationsAreRefused(_ spec: String) {
        #expect(throws: ImageCoreError.self) { try RemoteStorageURL(parsing: spec) }
    }

    @Test func passwordsAreMaskedEverywhere() throws {
        let redis = try RemoteStorageURL(parsing: "redis://admin:s3cret@10.0.0.1:6380/2|timeout=500")
        #expect(redis.description == "redis://admin:***@10.0.0.1:6380/2|timeout=500")
        #expect(try RemoteStorageURL(parsing: "redis://s3cret@h").description == "redis://***@h")
        let http = try RemoteStorageURL(parsing: "https://u:p%40ss@dav.example/imgs")
        #expect(http.withoutCredentials.url == "https://dav.example/imgs")
        #expect(http.withoutCredentials.credentials == "u:p%40ss")
        let error = #expect(throws: ImageCoreError.self) { try RemoteStorageURL(parsing: "redis://u:s3cret@h|bogus") }
        #expect(error?.message.contains("s3cret") == false)
        // A misspelt or refused attribute's own URL: its password masked too.
        for spec in ["s3://b|endpont=http://u:s3cret@h", "s3://b|endpoint=ftp://u:s3cret@h"] {
            let error = #expect(throws: ImageCoreError.self) { try RemoteStorageURL(parsing: spec) }
            #expect(error?.message.contains("s3cret") == false, "\(error?.message ?? "")")
            #expect(error?.message.contains("u:***@h") == true, "\(error?.message ?? "")")
        }
    }

    /// A known attribute with a bad value says so, instead of calling the
    /// attribute unknown.
    @Test func aBadValueIsNamedAsSuch() {
        let error = #expect(throws: ImageCoreError.self) { try RemoteStorageURL(parsing: "redis://h|timeout=abc") }
        #expect(
            error?.message == "remote storage 'redis://h': bad timeout 'abc' (expected milliseconds above 0)",
            "\(error?.message ?? "")")
    }

    @Test func anObjectRoundTripsAndRefusesDamage() throws {
        let entry = CacheEntry(
            key: "http://x/a.png", url: "http://x/a.png",
            info: ImageInfo(format: .png, width: 4, height: 3, frameCount: 1, loopCount: nil, orientation: 1),
            byteCount: Fixtures.tinyPNG.count, checksum: Digest.xxh3Hex(Fixtures.tinyPNG), storedAt: 1,
            response: StoredResponse(etag: "\"e\"", freshUntil: 99), dataFileName: "f")
        let object = RemoteObject.encode(entry, bytes: Fixtures.tinyPNG)
        let decoded = try #require(RemoteObject.decode(object))
        #expect(decoded.entry.etag == "\"e\"" && decoded.entry.expires == 99 && decoded.bytes == Fixtures.tinyPNG)
        var damagedRecord = object
        damagedRecord[30] ^= 1
        #expect(RemoteObject.decode(damagedRecord) == nil)
        #expect(RemoteObject.decode(Array(object.prefix(40))) == nil)
        #expect(RemoteObject.decode(Array("imgcache-remote 0 5\nabcde".utf8)) == nil)
    }
}
