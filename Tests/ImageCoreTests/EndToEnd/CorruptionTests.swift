import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Damage done to a cache behind imgcache's back (bit rot, a torn copy, a
/// stray file): detected by checksum, reported with `-v`, counted in
/// `stat`, refetched, and never served.
@Suite(.serialized) struct CorruptionTests {
    enum Damage: String, CaseIterable {
        case bitFlipInBytes, truncatedBytes, emptyBytes, missingBytes
        case bitFlipInRecord, truncatedRecord, emptyRecord, garbageRecord

        var hitsTheRecord: Bool { [.bitFlipInRecord, .truncatedRecord, .emptyRecord, .garbageRecord].contains(self) }

        func apply(bytesPath: String, record: StoredRecord) throws {
            let path = bytesPath
            var contents = try hitsTheRecord ? record.read() : [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            switch self {
            case .bitFlipInBytes: contents[contents.count / 2] ^= 0x10
            case .bitFlipInRecord: contents[contents.count / 3] ^= 0x01
            case .truncatedBytes, .truncatedRecord: contents.removeLast(contents.count / 2)
            case .emptyBytes, .emptyRecord: contents = []
            case .garbageRecord: contents = Array("imgcache entry\nnonsense\n\u{0}\u{1}\u{2}".utf8)
            case .missingBytes:
                try FileManager.default.removeItem(atPath: path)
                return
            }
            if hitsTheRecord {
                try record.write(contents)
            } else {
                // In place, as bit rot would: the file keeps its attributes.
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
                try handle.truncate(atOffset: 0)
                try handle.write(contentsOf: Data(contents))
                try handle.close()
            }
        }
    }

    @Test(arguments: Damage.allCases) func aDamagedEntryIsNeverServed(_ damage: Damage) throws {
        let server = try TestHTTPServer()
        let cache = try TemporaryDirectory()
        let image = Fixtures.tinyPNG + (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        server.route("/x.png", .ok(image))
        let url = server.url("/x.png")
        let stored = try CLI.run(["fetch", "--path", url], cacheDir: cache.path)
        try #require(stored.status == 0, "\(stored.stderr)")
        let bytesPath = String(stored.stdoutText.dropLast())
        try damage.apply(bytesPath: bytesPath, record: StoredRecord(CacheDirectory(root: cache.path), CacheKey(url)))

        let result = try CLI.run(["fetch", "-v", url], cacheDir: cache.path)
        #expect(result.status == 0, "\(result.stderr)")
        let servedWhole = result.stdout == image
        #expect(servedWhole, "not the server's bytes (exit \(result.status)): \(result.stderr)")
        #expect(server.requestCount(for: "/x.png") == 2, "not refetched")
        // Bytes gone entirely look like a replace racing this read: a miss, not damage.
        if damage != .missingBytes {
            #expect(result.stderr.contains("discarded corrupt entry"), "\(result.stderr)")
            let stat = try CLI.run(["stat", "--json"], cacheDir: cache.path)
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(stat.stdout)) as? [String: Any])
            #expect((summary["counters"] as? [String: Int])?["corrupt_entries"] == 1, "\(summary)")
        }
        // The refetched entry is whole again.
        let refetched = try CLI.run(["fetch", "--offline", url], cacheDir: cache.path).stdout == image
        #expect(refetched)
        StressReport.record(
            "Damaged entry: \(damage.rawValue)", how: "CorruptionTests",
            outcome: servedWhole
                ? "not served; \(damage == .missingBytes ? "a miss" : "reported with -v, counted"), refetched"
                : "SERVED DAMAGED BYTES")
    }

    @Test func strayFilesAreIgnoredThenCleanedAway() throws {
        let server = try TestHTTPServer()
        let cache = try TemporaryDirectory()
        server.route("/x.png", .ok(Fixtures.tinyPNG))
        let url = server.url("/x.png")
        let stored = try CLI.run(["fetch", "--path", url], cacheDir: cache.path)
        try #require(stored.status == 0, "\(stored.stderr)")
        let bytesPath = String(stored.stdoutText.dropLast())
        let shard = (bytesPath as NSString).deletingLastPathComponent
        let hash = CacheKey(url).hash
        let strays = [
            "\(shard)/\(hash).0000000000000000.png", "\(shard)/notes.txt", "\(cache.path)/entries/zz",
            "\(shard)/\(CacheKey(url + "?other").hash).meta",
        ]
        for stray in strays { _ = FileManager.default.createFile(atPath: stray, contents: Data("stray".utf8)) }
        let old = Date().addingTimeInterval(-3 * 86_400)
        for stray in strays { try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: stray) }

        let served = try CLI.run(["fetch", "--offline", "-v", url], cacheDir: cache.path)
        #expect(served.stdout == Fixtures.tinyPNG, "\(served.stderr)")
        let other = try CLI.run(["fetch", "--offline", url + "?other"], cacheDir: cache.path)
        #expect(other.status == 7 && other.stdout.isEmpty, "a stray record was served: \(other.stderr)")
        let clean = try CLI.run(["clean", "--json"], cacheDir: cache.path)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(clean.stdout)) as? [String: Any])
        #expect((report["stray_files_removed"] as? Int ?? 0) >= 2, "\(report)")
        #expect(try CLI.run(["fetch", "--offline", url], cacheDir: cache.path).stdout == Fixtures.tinyPNG)
    }
}
