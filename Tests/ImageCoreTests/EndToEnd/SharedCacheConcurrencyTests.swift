import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Several imgcache processes on one cache directory while `clean` trims it
/// in a loop: nothing crashes, and everything the cache serves afterwards is
/// byte-identical to what the server sent.
struct SharedCacheConcurrencyTests {
    @Test func prefetchersAndACleanerShareOneCache() async throws {
        let server = try TestHTTPServer()
        let cache = try TemporaryDirectory()
        let images = (0..<40).map { index in
            Fixtures.tinyPNG + (0..<(500 + index * 37)).map { UInt8(truncatingIfNeeded: $0 &* (index + 3)) }
        }
        for (index, image) in images.enumerated() {
            server.route("/\(index).png", index % 3 == 0 ? .trickle(image, bytesPerSecond: 40_000) : .ok(image))
        }
        let limit = images.reduce(0) { $0 + $1.count } / 2
        var generator = SplitMix(seed: 7)
        let lists: [[UInt8]] = (0..<4).map { _ in
            let order = (0..<40).map { ($0, generator.next()) }.sorted { $0.1 < $1.1 }.map(\.0)
            return Array(order.map { server.url("/\($0).png") }.joined(separator: "\n").utf8)
        }

        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for list in lists {
                group.addTask { try CLI.run(["prefetch", "-q", "-j", "4"], cacheDir: cache.path, stdin: list).status }
            }
            group.addTask {
                for _ in 0..<15 {
                    let clean = try CLI.run(["clean", "-q", "--max-size", "\(limit)"], cacheDir: cache.path)
                    if clean.status != 0 { return clean.status }
                    try await Task.sleep(for: .milliseconds(50))
                }
                return 0
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == 0 }, "\(statuses)")

        #expect(try CLI.run(["clean", "-q", "--max-size", "\(limit)"], cacheDir: cache.path).status == 0)
        var served = 0
        for (index, image) in images.enumerated() {
            let result = try CLI.run(["fetch", "--offline", server.url("/\(index).png")], cacheDir: cache.path)
            if result.status == 0 {
                served += 1
                #expect(result.stdout == image, "entry \(index) differs from the server's bytes")
            } else {
                #expect(result.status == 7, "\(result.stderr)")
            }
        }
        #expect(served > 0)
        let summary = try JSONSerialization.jsonObject(
            with: Data(try CLI.run(["stat", "--json"], cacheDir: cache.path).stdout))
        let bytes = try #require((summary as? [String: Any])?["bytes"] as? Int)
        #expect(bytes <= limit)
        #expect(Statistics.totals(in: CacheDirectory(root: cache.path))[.corruptEntries, default: 0] == 0)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: "\(cache.path)/tmp").filter { !$0.hasPrefix("purge") }
                .isEmpty)
    }
}

/// Many processes wanting one URL at the same moment: one downloads, the
/// others wait on its lock and read its entry.
@Suite(.serialized) struct CrossProcessCoalescingTests {
    @Test func sixteenProcessesOnOneURLDownloadItOnce() throws {
        let server = try TestHTTPServer()
        let cache = try TemporaryDirectory()
        let image = Fixtures.tinyPNG + [UInt8](repeating: 3, count: 300_000)
        // Fresh for an hour: a process that starts after the entry is stored
        // serves it (without freshness it would rightly revalidate, and with
        // no validator that is a second download).
        server.route("/one.png", .trickle(image, bytesPerSecond: 600_000, headers: ["Cache-Control": "max-age=3600"]))
        let outputs = try TemporaryDirectory()
        let processes = try (0..<16).map { index in
            try CLI.start(
                ["fetch", "-o", "\(outputs.path)/\(index).png", server.url("/one.png")], cacheDir: cache.path,
                stdinPath: "/dev/null")
        }
        for process in processes { process.waitUntilExit() }
        #expect(processes.allSatisfy { $0.terminationStatus == 0 })
        for index in 0..<16 {
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(outputs.path)/\(index).png"))) == image)
        }
        // One download; a second only if a process missed both the lock and the entry by a hair.
        #expect(server.requestCount(for: "/one.png") <= 2, "\(server.requestCount(for: "/one.png")) requests")
        StressReport.record(
            "16 processes fetch one URL at once", how: "CrossProcessCoalescingTests (fcntl lock per key)",
            outcome: "\(server.requestCount(for: "/one.png")) request(s); all 16 outputs whole")
    }
}
