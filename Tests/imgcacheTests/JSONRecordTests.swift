import Foundation
import TestSupport
import Testing

/// Every JSON record type decoded with the types the man page gives
/// (issue 15, item 8): `JSONDecoder` refuses `"yes"` for a Bool, `true` for
/// a number and a number for a string, so a wrong type fails the test.
@Suite(.serialized) struct JSONRecordTests: CommandSuite {
    let fixture: CommandFixture

    init() throws {
        fixture = try CommandFixture()
        server.route("/a.png", .ok(Fixtures.tinyPNG, headers: ["Cache-Control": "max-age=3600", "ETag": "\"v1\""]))
    }

    struct ErrorField: Decodable {
        var kind: String
        var message: String
    }

    struct Result: Decodable {
        var url: String
        var key: String
        var result: String
        var format: String?
        var width: Int?
        var height: Int?
        var frames: Int?
        var orientation: Int?
        var bytes: Int?
        var path: String?
        var etag: String?
        var expires: String?
        var duration_ms: Double
        var error: ErrorField?
    }

    struct Counters: Decodable {
        var memory_hits: Int
        var disk_hits: Int
        var misses: Int
        var downloads: Int
        var revalidations: Int
        var failures: Int
        var evictions: Int
        var bytes_downloaded: Int
        var corrupt_entries: Int
    }

    struct Summary: Decodable {
        var cache_dir: String
        var entries: Int
        var bytes: Int
        var max_size: Int?
        var max_age_s: Int
        var failed_ttl_s: Int
        var oldest_use: String?
        var newest_use: String?
        var failed_urls: Int
        var counters: Counters
    }

    struct Failed: Decodable {
        var kind: String
        var status: Int?
        var message: String
        var failed_at: String
        var until: String
    }

    struct Entry: Decodable {
        var url: String
        var key: String
        var cached: Bool
        var format: String?
        var width: Int?
        var height: Int?
        var frames: Int?
        var bytes: Int?
        var path: String?
        var stored_at: String?
        var last_used: String?
        var etag: String?
        var expires: String?
        var failed: Failed?
    }

    struct Clean: Decodable {
        var dry_run: Bool
        var expired: Int
        var evicted: Int
        var bytes_removed: Int
        var failed_records_removed: Int
        var stray_files_removed: Int
        var entries_left: Int
        var bytes_left: Int
    }

    struct PurgedURL: Decodable {
        var url: String
        var key: String
        var removed: Bool
        var entry_removed: Bool
        var failed_record_removed: Bool
    }
    struct PurgedAll: Decodable {
        var cache_dir: String
        var purged: String
    }

    func records<T: Decodable>(_ type: T.Type, _ arguments: [String], stdin: [UInt8] = []) throws -> [T] {
        let result = try CLI.run(arguments, cacheDir: cache.path, stdin: stdin)
        return try result.stdoutLines.map { try JSONDecoder().decode(T.self, from: Data($0.utf8)) }
    }

    func isISO8601(_ text: String?) -> Bool {
        text?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil
    }

    @Test func everyRecordTypeHasItsDocumentedTypes() throws {
        let url = server.url("/a.png"), missing = server.url("/missing.png")
        let fetched = try records(Result.self, ["fetch", "--json", url, missing])
        #expect(fetched.map(\.result) == ["downloaded", "failed"])
        #expect(fetched[0].width == 4 && fetched[0].etag == "\"v1\"" && isISO8601(fetched[0].expires))
        #expect(fetched[0].error == nil && fetched[1].format == nil)
        #expect(fetched[1].error?.kind == "http")

        let prefetched = try records(Result.self, ["prefetch", "--json"], stdin: Array("\(url)\n\(missing)\n".utf8))
        #expect(Set(prefetched.map(\.result)) == ["disk", "skipped"])

        let summary = try #require(try records(Summary.self, ["stat", "--json"]).first)
        #expect(summary.entries == 1 && summary.failed_urls == 1 && summary.counters.downloads == 1)
        #expect(isISO8601(summary.oldest_use) && isISO8601(summary.newest_use))

        let entries = try records(Entry.self, ["stat", "--json", url, missing])
        #expect(entries.map(\.cached) == [true, false])
        #expect(
            isISO8601(entries[0].stored_at) && isISO8601(entries[0].last_used)
                && entries[0].bytes == Fixtures.tinyPNG.count)
        #expect(entries[1].failed?.status == 404 && isISO8601(entries[1].failed?.until))

        let dryRun = try #require(try records(Clean.self, ["clean", "--json", "--dry-run", "--max-size", "1"]).first)
        #expect(dryRun.dry_run == true && dryRun.evicted == 1)
        let cleaned = try #require(try records(Clean.self, ["clean", "--json"]).first)
        #expect(cleaned.dry_run == false && cleaned.entries_left == 1)

        let purged = try records(PurgedURL.self, ["purge", "--json", url, missing, server.url("/never.png")])
        #expect(purged.map(\.removed) == [true, true, false])
        #expect(purged.map(\.entry_removed) == [true, false, false])
        #expect(purged.map(\.failed_record_removed) == [false, true, false])
        let all = try records(PurgedAll.self, ["purge", "--json", "--all"])
        #expect(all.first?.purged == "all")
    }
}
