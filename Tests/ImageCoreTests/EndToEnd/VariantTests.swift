import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Thumbnails kept beside their originals: reused, listed, and gone with them.
@Suite(.serialized) struct VariantTests: CommandSuite {
    let fixture: CommandFixture

    init() throws {
        fixture = try CommandFixture()
    }

    var shardFiles: [String] {
        let all = FileManager.default.enumerator(atPath: "\(cache.path)/entries")?.allObjects as? [String] ?? []
        return all.filter { $0.contains("/") }
    }

    /// Files an entry without variants takes: one, or two with record files.
    var entryFiles: Int { CacheDirectory(root: cache.path).recordPlacement() == .attributes ? 1 : 2 }

    @Test func aThumbnailIsMadeOnceAndReused() throws {
        server.route("/photo.jpg", .ok(try Fixtures.bytes("baseline.jpg"), headers: ["Cache-Control": "max-age=60"]))
        let first = try run("fetch", "--thumbnail", "8x8", server.url("/photo.jpg"))
        #expect(first.status == 0)
        let second = try run("fetch", "-v", "--thumbnail", "8x8", server.url("/photo.jpg"))
        #expect(second.stdout == first.stdout)
        #expect(second.stderr.contains("variant from disk (thumbnail=8x8,"))
        #expect(server.requestCount(for: "/photo.jpg") == 1)
        // Another size is another variant; both are listed.
        #expect(try run("fetch", "--thumbnail", "4x4", "--encode", "png", server.url("/photo.jpg")).status == 0)
        let stat = try run("stat", "--json", server.url("/photo.jpg"))
        let record = try #require(try JSONSerialization.jsonObject(with: Data(stat.stdout)) as? [String: Any])
        let variants = try #require(record["variants"] as? [[String: Any]])
        #expect(
            Set(variants.compactMap { $0["transform"] as? String }) == [
                "thumbnail=8x8,frames=all,encode=original,quality=default,orient=1,colorspace=original",
                "thumbnail=4x4,frames=all,encode=png,quality=default,orient=1,colorspace=original",
            ])
        #expect(shardFiles.count == entryFiles + 2)
    }

    @Test func variantsGoWithTheirOriginal() throws {
        server.route(
            "/a.jpg", .ok(try Fixtures.bytes("baseline.jpg"), headers: ["Cache-Control": "max-age=0", "ETag": "\"1\""]))
        #expect(try run("fetch", "--thumbnail", "8x8", server.url("/a.jpg")).status == 0)
        #expect(shardFiles.count == entryFiles + 1)
        // A changed original (200 on revalidation) drops its thumbnails.
        server.route(
            "/a.jpg",
            .ok(try Fixtures.bytes("progressive.jpg"), headers: ["Cache-Control": "max-age=60", "ETag": "\"2\""]))
        #expect(try run("fetch", "-o", "/dev/null", server.url("/a.jpg")).status == 0)
        #expect(shardFiles.count == entryFiles)
        #expect(try run("fetch", "--thumbnail", "8x8", server.url("/a.jpg")).status == 0)
        #expect(shardFiles.count == entryFiles + 1)
        // clean counts and removes a variant with its entry.
        let clean = try run("clean", "--max-size", "1")
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(shardFiles.isEmpty, "\(shardFiles)")
        // purge URL too.
        #expect(try run("fetch", "--thumbnail", "8x8", server.url("/a.jpg")).status == 0)
        #expect(try run("purge", server.url("/a.jpg")).status == 0)
        #expect(shardFiles.isEmpty, "\(shardFiles)")
    }
}
