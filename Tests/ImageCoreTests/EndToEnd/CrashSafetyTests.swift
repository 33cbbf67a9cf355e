import Foundation
import Testing
@testable import ImageCore

/// SIGKILL at random moments, mid-transfer and mid-write, to prefetch and
/// clean: afterwards the cache serves only whole entries equal to the
/// server's bytes, and the next run completes. (`make test` runs a short
/// form; the rounds are the `IMGCACHE_KILL_ROUNDS` environment variable.)
@Suite(.serialized) struct CrashSafetyTests {
    let server: TestHTTPServer
    let cache: TemporaryDirectory
    let images: [String: [UInt8]]

    init() throws {
        server = try TestHTTPServer()
        cache = try TemporaryDirectory()
        var images: [String: [UInt8]] = [:]
        for index in 0..<60 {
            let large = index % 3 == 0
            let bytes = Fixtures.tinyPNG + (0..<(large ? 150_000 + index : 2_000 + index)).map { UInt8(truncatingIfNeeded: $0 &* (index + 1)) }
            let path = "/\(index).png"
            images[path] = bytes
            server.route(path, large ? .trickle(bytes, bytesPerSecond: 600_000) : .ok(bytes))
        }
        self.images = images
    }

    /// Every entry the cache holds is whole and equal to the server's bytes; returns how many there are.
    func verifyCache() throws -> Int {
        let disk = DiskCache(directory: CacheDirectory(root: cache.path), statistics: Statistics())
        var whole = 0
        for (path, bytes) in images {
            if let cached = try disk.lookup(CacheKey(server.url(path))) {
                #expect(cached.bytes == bytes, "entry for \(path) differs from the server's bytes")
                whole += 1
            }
        }
        return whole
    }

    @Test func killedPrefetchesAndCleansLeaveOnlyWholeEntries() throws {
        let rounds = Int(ProcessInfo.processInfo.environment["IMGCACHE_KILL_ROUNDS"] ?? "") ?? 20
        let list = try TemporaryDirectory()
        let listPath = "\(list.path)/urls.txt"
        try Data(images.keys.sorted().map { server.url($0) }.joined(separator: "\n").utf8)
            .write(to: URL(fileURLWithPath: listPath))
        var generator = SystemRandomNumberGenerator()
        for round in 0..<rounds {
            let prefetch = try CLI.start(["prefetch", "-j", "8"], cacheDir: cache.path, stdinPath: listPath)
            let cleaner = round % 2 == 1 ? try CLI.start(["clean", "--max-size", "300K"], cacheDir: cache.path, stdinPath: "/dev/null") : nil
            usleep(UInt32.random(in: 20_000...400_000, using: &generator))
            for process in [prefetch, cleaner].compactMap({ $0 }) where process.isRunning {
                kill(process.processIdentifier, SIGKILL)
            }
            prefetch.waitUntilExit()
            cleaner?.waitUntilExit()
            _ = try verifyCache()
            // Every third round, purge some entries so later kills land on fresh writes again.
            if round % 3 == 2 { _ = try CLI.run(["clean", "--max-size", "200K"], cacheDir: cache.path) }
        }
        let final = try CLI.run(["prefetch", "-j", "8"], cacheDir: cache.path, stdin: Array(
            images.keys.sorted().map { server.url($0) }.joined(separator: "\n").utf8))
        #expect(final.status == 0, "\(final.stderr)")
        #expect(try verifyCache() == images.count)
        let stat = try CLI.run(["stat", "--json"], cacheDir: cache.path)
        let record = try #require(try JSONSerialization.jsonObject(with: Data(stat.stdout)) as? [String: Any])
        #expect(record["entries"] as? Int == images.count)
        #expect((record["counters"] as? [String: Int])?.values.allSatisfy { $0 >= 0 } == true)
    }
}
