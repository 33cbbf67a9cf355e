import Foundation
import TestSupport
import Testing

/// The synchronous warm-hit path (`WarmHit`) against the full path: the same
/// command line, once as the warm-hit path takes it and once with an option
/// at its default value (`--retries 2`), which only the full path takes,
/// must give the same output, exit status, statistics and last-use update.
@Suite(.serialized) struct WarmHitTests: LoopbackSuite {
    let fixture: LoopbackFixture
    var cache: TemporaryDirectory { fixture.directory }

    init() throws { fixture = try LoopbackFixture() }

    func run(_ arguments: [String]) throws -> CLI.Result {
        try CLI.run(arguments, cacheDir: cache.path)
    }

    func diskHits() throws -> Int {
        let summary = try run(["stat", "--json"])
        let record = try #require(try JSONSerialization.jsonObject(with: Data(summary.stdout)) as? [String: Any])
        return try #require(record["counters"] as? [String: Int])["disk_hits"] ?? 0
    }

    /// The one entry's file, or its record file: its modification time is the last use.
    func record() throws -> String {
        let entries = FileManager.default.enumerator(atPath: "\(cache.path)/entries")?.allObjects as? [String] ?? []
        return try #require(entries.first { $0.utf8.count == 66 || $0.hasSuffix(".meta") })
    }

    /// The modification time of the one entry's record (its last use).
    func lastUse() throws -> Date {
        let path = "\(cache.path)/entries/\(try record())"
        return try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
    }

    func ageRecord() throws {
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3 * 86_400)],
            ofItemAtPath: "\(cache.path)/entries/\(try record())")
    }

    @Test func aHitIsAnsweredAlikeByBothPaths() throws {
        server.route("/x.png", .ok(png, headers: ["Content-Type": "image/png", "Cache-Control": "max-age=600"]))
        let url = server.url("/x.png")
        #expect(try run(["fetch", url]).status == 0)
        let out = cache.path + "/out.png"
        let forms: [(arguments: [String], output: String?)] = [
            (["fetch", url], nil),
            (["fetch", "-v", url], nil),
            (["-v", "fetch", url, "-o", out], out),
            (["--cache-dir", cache.path, "fetch", "-q", "-o\(out)", url], out),
            (["fetch", "--no-progress", "--output=\(out)", url], out),
        ]
        for (form, output) in forms {
            for full in [false, true] {
                let arguments = full ? form + ["--retries", "2"] : form
                try ageRecord()
                try? FileManager.default.removeItem(atPath: out)
                let hitsBefore = try diskHits()
                let result = try run(arguments)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                if let output {
                    #expect(FileManager.default.contents(atPath: output) == Data(png), "\(arguments)")
                    #expect(result.stdout.isEmpty)
                } else {
                    #expect(result.stdout == png, "\(arguments)")
                }
                let expectedLog = form.contains("-v") ? "imgcache: served from disk: \(url)\n" : ""
                #expect(result.stderr == expectedLog, "\(arguments)")
                #expect(try diskHits() == hitsBefore + 1, "\(arguments)")
                #expect(try lastUse().timeIntervalSinceNow > -60, "\(arguments): last use not updated")
            }
        }
        #expect(server.requestCount(for: "/x.png") == 1)
    }

    /// The libraries the dynamic loader initialised, from `LD_DEBUG=libs`'s "calling init:" lines.
    func librariesLoaded(_ arguments: [String]) throws -> [String] {
        let result = try CLI.run(arguments, cacheDir: cache.path, environment: ["LD_DEBUG": "libs"])
        #expect(result.status == 0, "\(arguments)")
        return result.stderr.split(separator: "\n").compactMap { line in
            line.range(of: "calling init: ").map { String(line[$0.upperBound...]) }
        }
    }

    /// A warm hit needs the cache and the output: every codec, network and
    /// remote-storage library is loaded on first use (library_loader.h), and
    /// a hit uses none. Counted by the dynamic loader, so it cannot pass by luck.
    @Test func aWarmHitAndVersionLoadNoCodecNetworkOrStoreLibrary() throws {
        server.route("/x.png", .ok(png, headers: ["Cache-Control": "max-age=600"]))
        let url = server.url("/x.png")
        let cold = try librariesLoaded(["fetch", url, "-o", cache.path + "/out.png"])
        #expect(cold.contains { $0.contains("libcurl") }, "LD_DEBUG=libs reports what dlopen loads")
        let decoded = try librariesLoaded(["fetch", "--decode", "ppm", url])
        #expect(decoded.contains { $0.contains("libpng16") })
        let unwanted = ["libpng", "libgif", "libwebp", "libjpeg", "libhiredis", "libz.", "libcurl", "libavif", "lcms"]
        for arguments in [["fetch", url, "-o", cache.path + "/out.png"], ["fetch", "--path", url], ["--version"]] {
            let loaded = try librariesLoaded(arguments)
            #expect(!loaded.isEmpty, "\(arguments): LD_DEBUG=libs printed nothing")
            let codecs = loaded.filter { library in unwanted.contains { library.contains($0) } }
            #expect(codecs.isEmpty, "\(arguments) loaded \(codecs)")
        }
    }

    @Test func anOutputFileAlreadyHoldingTheBytesIsOnlyTouched() throws {
        server.route("/x.png", .ok(png, headers: ["Cache-Control": "max-age=600"]))
        let url = server.url("/x.png")
        let out = cache.path + "/out.png"
        for full in [false, true] {
            _ = FileManager.default.createFile(atPath: out, contents: Data(png))
            let before = try #require(try FileManager.default.attributesOfItem(atPath: out)[.systemFileNumber] as? Int)
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -86_400)], ofItemAtPath: out)
            let fetched = try run(["fetch", url, "-o", out] + (full ? ["--retries", "2"] : []))
            #expect(fetched.status == 0, "\(fetched.stderr)")
            let attributes = try FileManager.default.attributesOfItem(atPath: out)
            #expect(attributes[.systemFileNumber] as? Int == before, "the same file, not a new one")
            let modified = try #require(attributes[.modificationDate] as? Date)
            #expect(modified.timeIntervalSinceNow > -60, "its modification time is now, as after a rewrite")
        }
        // Other bytes of the same length are replaced.
        var other = png
        other[other.count - 1] ^= 0xFF
        _ = FileManager.default.createFile(atPath: out, contents: Data(other))
        #expect(try run(["fetch", url, "-o", out]).status == 0)
        #expect(FileManager.default.contents(atPath: out) == Data(png))
    }

    @Test func aWriteErrorReadsTheSameOnBothPaths() throws {
        server.route("/y.png", .ok(png, headers: ["Content-Type": "image/png", "Cache-Control": "max-age=600"]))
        let url = server.url("/y.png")
        #expect(try run(["fetch", url]).status == 0)
        let form = ["fetch", url, "-o", "\(cache.path)/no/such/dir/out.png"]
        let fast = try run(form)
        let full = try run(form + ["--retries", "2"])
        #expect(fast.status != 0)
        #expect(fast.status == full.status)
        #expect(fast.stderr == full.stderr)
        #expect(fast.stderr.hasPrefix("imgcache: \(url): "))
    }

    @Test func aStaleEntryOrAMissTakesTheFullPath() throws {
        server.route(
            "/z.png",
            .ok(
                png,
                headers: [
                    "Content-Type": "image/png", "Cache-Control": "max-age=0",
                    "ETag": "\"z1\"",
                ]))
        let url = server.url("/z.png")
        let miss = try run(["fetch", "-v", url])
        #expect(miss.status == 0)
        #expect(miss.stdout == png)
        #expect(miss.stderr.contains("stored: \(url)"))
        let stale = try run(["fetch", "-v", url])
        #expect(stale.status == 0)
        #expect(stale.stdout == png)
        #expect(!stale.stderr.contains("served from disk: \(url)\n"))
        #expect(server.requestCount(for: "/z.png") == 2)
    }
}
