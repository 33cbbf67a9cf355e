import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImageCore

/// Eight processes at a time fetching and prefetching overlapping sets of
/// URLs while `clean --max-size` runs every second, for
/// `IMGCACHE_SOAK_SECONDS` (8 in `make test`, minutes in `make stress`):
/// nothing crashes, every byte read equals the server's, no counter
/// increment is lost, and each clean leaves the cache within 10 % of its
/// limit.
@Suite(.serialized) struct SoakTests {
    /// What the workers and the cleaner saw.
    struct Tally {
        var processes = 0
        var loads = 0
        var badStatuses: [String] = []
        var corruptReads: [String] = []
        var cleans = 0
        var evicted = 0
        /// The largest size stat saw right after a clean, over the limit.
        var worstSizeRatio = 0.0
        /// The same, less what was downloaded from when the clean started
        /// (those stores may land after its scan): what the clean left.
        var worstLeftRatio = 0.0
    }

    @Test func eightProcessesAndACleanerShareOneCache() throws {
        let seconds = Double(ProcessInfo.processInfo.environment["IMGCACHE_SOAK_SECONDS"] ?? "") ?? 8
        let server = try TestHTTPServer()
        let cache = try TemporaryDirectory(), out = try TemporaryDirectory()
        let images = (0..<120).map { index in
            Fixtures.tinyPNG + (0..<(2_000 + index * 150)).map { UInt8(truncatingIfNeeded: $0 &* (index + 5)) }
        }
        for (index, image) in images.enumerated() { server.route("/\(index).png", .ok(image)) }
        let limit = images.reduce(0) { $0 + $1.count } / 2
        let tally = Mutex(Tally())
        let deadline = Date().addingTimeInterval(seconds)
        // Under a sanitizer on a busy machine one clean and stat can outlast
        // the whole soak: it then goes on until the cleaner has finished two
        // passes among the workers (checked below), within a bound of its own.
        let lastChance = deadline.addingTimeInterval(max(seconds, 300))
        @Sendable func soaking() -> Bool {
            Date() < deadline || (Date() < lastChance && tally.withLock { $0.cleans } < 2)
        }

        /// A worker's loop: prefetchers warm 30 URLs of their window at a
        /// time; fetchers read 3 and compare every byte.
        @Sendable func work(_ worker: Int) {
            var generator = SplitMix(seed: UInt64(worker + 1))
            var round = 0
            while soaking() {
                // Windows of 50 URLs, shifted by 15 per worker: each URL is wanted by three or four workers.
                let picks = (0..<(worker < 4 ? 30 : 3)).map { _ in
                    (worker * 15 + Int(generator.next() % 50)) % images.count
                }
                let urls = picks.map { server.url("/\($0).png") }
                let result: CLI.Result
                if worker < 4 {
                    result =
                        (try? CLI.run(
                            ["prefetch", "-q", "-j", "4"], cacheDir: cache.path,
                            stdin: Array(urls.joined(separator: "\n").utf8)))
                        ?? CLI.Result(stdout: [], stderr: "timed out", status: -1)
                } else {
                    let files = picks.indices.map { "\(out.path)/w\(worker)-\(round)-\($0)" }
                    result =
                        (try? CLI.run(["fetch"] + files.flatMap { ["-o", $0] } + urls, cacheDir: cache.path))
                        ?? CLI.Result(stdout: [], stderr: "timed out", status: -1)
                    for (file, index) in zip(files, picks) {
                        let bytes = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
                        if result.status == 0 && bytes != images[index] {
                            tally.withLock { $0.corruptReads.append("/\(index).png by worker \(worker)") }
                        }
                        try? FileManager.default.removeItem(atPath: file)
                    }
                }
                tally.withLock {
                    $0.processes += 1
                    $0.loads += urls.count
                    if result.status != 0 {
                        $0.badStatuses.append("worker \(worker): \(result.status) \(result.stderr)")
                    }
                }
                round += 1
            }
        }

        /// Bytes the server sent from `time` (seconds since 1970) on.
        @Sendable func bytesServed(since time: Double) -> Int {
            server.requests.filter { $0.receivedAt >= time }.reduce(0) { sum, request in
                sum + (Int(request.path.dropFirst().dropLast(4)).map { images[$0].count } ?? 0)
            }
        }

        /// Every second: clean to the limit, then measure what stat sees.
        @Sendable func clean() {
            while soaking() {
                let started = Date()
                // A download received just before the clean began may be stored after its scan.
                let since = started.timeIntervalSince1970 - 0.5
                if let result = try? CLI.run(["clean", "--json", "--max-size", "\(limit)"], cacheDir: cache.path),
                    let report = try? JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any],
                    let stat = try? CLI.run(["stat", "--json"], cacheDir: cache.path),
                    let summary = try? JSONSerialization.jsonObject(with: Data(stat.stdout)) as? [String: Any],
                    let bytes = summary["bytes"] as? Int
                {
                    let recent = bytesServed(since: since)
                    tally.withLock {
                        $0.worstLeftRatio = max($0.worstLeftRatio, Double(bytes - recent) / Double(limit))
                        $0.cleans += 1
                        $0.evicted += (report["evicted"] as? Int ?? 0) + (report["expired"] as? Int ?? 0)
                        $0.worstSizeRatio = max($0.worstSizeRatio, Double(bytes) / Double(limit))
                    }
                } else {
                    tally.withLock { $0.badStatuses.append("clean or stat failed") }
                }
                let rest = 1 - Date().timeIntervalSince(started)
                if rest > 0 { usleep(UInt32(rest * 1_000_000)) }
            }
        }

        // Real threads: each blocks on a child process, and the cooperative pool has only one per core.
        let done = DispatchGroup()
        for worker in 0..<8 {
            done.enter()
            Thread.detachNewThread {
                work(worker)
                done.leave()
            }
        }
        done.enter()
        Thread.detachNewThread {
            clean()
            done.leave()
        }
        done.wait()

        let seen = tally.withLock { $0 }
        #expect(seen.badStatuses.isEmpty, "\(seen.badStatuses.prefix(5))")
        #expect(seen.corruptReads.isEmpty, "\(seen.corruptReads.prefix(5))")
        #expect(seen.cleans >= 2, "the cleaner ran \(seen.cleans) time(s)")
        #expect(
            seen.worstLeftRatio <= 1.1, "stat saw \(seen.worstLeftRatio) × the limit after a clean, less new downloads")

        // Counters: every response the server sent is one download; every eviction a clean reported is counted.
        let totals = Statistics.totals(in: CacheDirectory(root: cache.path))
        #expect(totals[.downloads, default: 0] == server.requestCount, "\(totals) vs \(server.requestCount) requests")
        #expect(totals[.evictions, default: 0] == seen.evicted)
        #expect(totals[.corruptEntries, default: 0] == 0)
        let lookups = totals[.memoryHits, default: 0] + totals[.diskHits, default: 0] + totals[.misses, default: 0]
        #expect(lookups >= seen.loads, "\(lookups) lookups counted for \(seen.loads) loads")

        // Afterwards, every entry is whole.
        var served = 0
        let disk = DiskCache(directory: CacheDirectory(root: cache.path), statistics: Statistics())
        for (index, image) in images.enumerated() {
            guard let entry = try disk.lookup(CacheKey(server.url("/\(index).png"))) else { continue }
            served += 1
            #expect(entry.bytes == image, "entry \(index) differs from the server's bytes")
        }
        #expect(served > 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(cache.path)/tmp").isEmpty)
        StressReport.record(
            "Soak: 8 processes + clean every second", how: "SoakTests, \(Int(seconds)) s",
            outcome: "\(seen.processes) processes, \(seen.loads) loads, \(server.requestCount) downloads, "
                + "\(seen.cleans) cleans; \(seen.badStatuses.count) failures, \(seen.corruptReads.count) corrupt reads, "
                + "0 lost counts (downloads = requests, evictions = cleans' reports); "
                + "after each clean at most \(Int((seen.worstLeftRatio * 100).rounded())) % of the limit "
                + "(\(Int((seen.worstSizeRatio * 100).rounded())) % counting downloads stored meanwhile)")
    }
}
