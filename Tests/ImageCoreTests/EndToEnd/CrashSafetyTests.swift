import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// SIGKILL at random moments, mid-transfer and mid-write, to prefetch and
/// clean: afterwards the cache serves only whole entries equal to the
/// server's bytes, and the next run completes. (`make test` runs a short
/// form; the rounds are the `IMGCACHE_KILL_ROUNDS` environment variable.)
@Suite(.serialized) struct CrashSafetyTests: CommandSuite {
    let fixture: CommandFixture
    let images: [String: [UInt8]]

    init() throws {
        fixture = try CommandFixture()
        var images: [String: [UInt8]] = [:]
        for index in 0..<60 {
            let large = index % 3 == 0
            let bytes =
                Fixtures.tinyPNG
                + (0..<(large ? 150_000 + index : 2_000 + index)).map { UInt8(truncatingIfNeeded: $0 &* (index + 1)) }
            let path = "/\(index).png"
            images[path] = bytes
            fixture.server.route(path, large ? .trickle(bytes, bytesPerSecond: 600_000) : .ok(bytes))
        }
        self.images = images
    }

    /// Every entry the cache serves is whole and equal to the server's
    /// bytes; returns how many it serves, and how many were not.
    func verifyCache() throws -> (whole: Int, corrupt: Int) {
        let disk = DiskCache(directory: CacheDirectory(root: cache.path), statistics: Statistics())
        var whole = 0, corrupt = 0
        for (path, bytes) in images {
            if let cached = try disk.lookup(CacheKey(server.url(path))) {
                #expect(cached.bytes == bytes, "entry for \(path) differs from the server's bytes")
                if cached.bytes == bytes { whole += 1 } else { corrupt += 1 }
            }
        }
        return (whole, corrupt)
    }

    @Test func killedPrefetchesAndCleansLeaveOnlyWholeEntries() throws {
        let rounds = Int(ProcessInfo.processInfo.environment["IMGCACHE_KILL_ROUNDS"] ?? "") ?? 20
        let list = try TemporaryDirectory()
        let listPath = "\(list.path)/urls.txt"
        try Data(images.keys.sorted().map { server.url($0) }.joined(separator: "\n").utf8)
            .write(to: URL(fileURLWithPath: listPath))
        var generator = SystemRandomNumberGenerator()
        var kills = (prefetch: 0, clean: 0), corruptServed = 0
        for round in 0..<rounds {
            let prefetch = try CLI.start(["prefetch", "-j", "8"], cacheDir: cache.path, stdinPath: listPath)
            let cleaner =
                round % 2 == 1
                ? try CLI.start(["clean", "--max-size", "300K"], cacheDir: cache.path, stdinPath: "/dev/null") : nil
            usleep(UInt32.random(in: 20_000...400_000, using: &generator))
            if prefetch.isRunning {
                kill(prefetch.processIdentifier, SIGKILL)
                kills.prefetch += 1
            }
            if let cleaner, cleaner.isRunning {
                kill(cleaner.processIdentifier, SIGKILL)
                kills.clean += 1
            }
            prefetch.waitUntilExit()
            cleaner?.waitUntilExit()
            corruptServed += try verifyCache().corrupt
            // Every third round, purge some entries so later kills land on fresh writes again.
            if round % 3 == 2 { _ = try CLI.run(["clean", "--max-size", "200K"], cacheDir: cache.path) }
        }
        let lastRun = try CLI.run(
            ["prefetch", "-j", "8"], cacheDir: cache.path,
            stdin: Array(
                images.keys.sorted().map { server.url($0) }.joined(separator: "\n").utf8))
        #expect(lastRun.status == 0, "\(lastRun.stderr)")
        let final = try verifyCache()
        #expect(final.whole == images.count && final.corrupt == 0)
        let stat = try CLI.run(["stat", "--json"], cacheDir: cache.path)
        let record = try #require(try JSONSerialization.jsonObject(with: Data(stat.stdout)) as? [String: Any])
        #expect(record["entries"] as? Int == images.count)
        #expect((record["counters"] as? [String: Int])?.values.allSatisfy { $0 >= 0 } == true)
        StressReport.record(
            "SIGKILL of prefetch and clean", how: "CrashSafetyTests, \(rounds) rounds at random moments",
            outcome: "\(kills.prefetch) prefetch and \(kills.clean) clean processes killed mid-run; "
                + "\(corruptServed) corrupt entries served; the next run completed with all \(final.whole) entries whole"
        )
    }
}

/// SIGKILL of `clean` mid-way through a large cache, many times: what is
/// left is always whole entries, and `stat` and the next clean agree.
@Suite(.serialized) struct KilledCleanTests {
    @Test func killedCleansLeaveOnlyWholeEntries() throws {
        let rounds = max(5, (Int(ProcessInfo.processInfo.environment["IMGCACHE_KILL_ROUNDS"] ?? "") ?? 20) / 2)
        let cache = try TemporaryDirectory()
        let directory = CacheDirectory(root: cache.path)
        try directory.prepare()
        let disk = DiskCache(directory: directory, statistics: Statistics())
        let info = ImageInfo(format: .png, width: 4, height: 3)
        var stored: [CacheKey: [UInt8]] = [:]
        for index in 0..<4_000 {
            let key = CacheKey("http://127.0.0.1/\(index).png")
            let bytes = Fixtures.tinyPNG + (0..<(100 + index % 900)).map { UInt8(truncatingIfNeeded: $0 &+ index) }
            _ = try disk.store(bytes, temporaryPath: nil, key: key, url: key.string, info: info, response: .init())
            stored[key] = bytes
        }
        let total = stored.values.reduce(0) { $0 + $1.count }
        var generator = SystemRandomNumberGenerator()
        var killed = 0, corruptServed = 0
        for round in 0..<rounds {
            // Each round asks for a smaller cache, so each clean has evicting left to do.
            let limit = total * (rounds - round) / (rounds + 1)
            let clean = try CLI.start(
                ["clean", "--max-size", "\(limit)"], cacheDir: cache.path, stdinPath: "/dev/null")
            usleep(UInt32.random(in: 5_000...150_000, using: &generator))
            if clean.isRunning {
                kill(clean.processIdentifier, SIGKILL)
                killed += 1
            }
            clean.waitUntilExit()
            for (key, bytes) in stored {
                guard let cached = try disk.lookup(key) else { continue }
                if cached.bytes != bytes { corruptServed += 1 }
            }
        }
        #expect(corruptServed == 0)
        #expect(killed > 0, "no clean was killed mid-way")
        let finish = try CLI.run(["clean", "--json", "--max-size", "\(total / 10)"], cacheDir: cache.path)
        #expect(finish.status == 0, "\(finish.stderr)")
        let left = stored.keys.filter { (try? disk.lookup($0)) != nil }.count
        let stat = try #require(
            try JSONSerialization.jsonObject(with: Data(CLI.run(["stat", "--json"], cacheDir: cache.path).stdout))
                as? [String: Any])
        #expect(stat["entries"] as? Int == left)
        #expect((stat["bytes"] as? Int ?? .max) <= total / 10)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: "\(cache.path)/tmp").filter { !$0.hasPrefix("purge") }
                .isEmpty)
        StressReport.record(
            "SIGKILL of clean on 4 000 entries", how: "KilledCleanTests, \(rounds) rounds at 5–150 ms",
            outcome: "\(killed) cleans killed mid-way; \(corruptServed) corrupt entries served; "
                + "the next clean completed and stat agrees (\(left) entries)")
    }
}
