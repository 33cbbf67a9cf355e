import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// `|shards=`: rendezvous hashing over real Redis servers, the choice the
/// same in every process, a dead shard costing only its own keys.
@Suite(.serialized)
struct ShardTests {
    static let count = 100

    @Test func shardsAreParsedAndDescribed() throws {
        let storage = try RemoteStorageURL(parsing: "redis://u:pw@cache-*.example:6379|shards=a,b(2),c(0.5)|lease=5000")
        #expect(storage.shards.map(\.name) == ["a", "b", "c"])
        #expect(storage.shards.map(\.weight) == [1, 2, 0.5])
        #expect(storage.leaseDuration == 5)
        #expect(storage.description == "redis://u:***@cache-*.example:6379|shards=a,b(2),c(0.5)|lease=5000")
        #expect(storage.shard(storage.shards[1]).url == "redis://u:pw@cache-b.example:6379")
        #expect(storage.shard(storage.shards[1]).shards.isEmpty)
        let http = try RemoteStorageURL(parsing: "http://cache-*.example/imgs|shards=x,y")
        #expect(http.shard(http.shards[0]).url == "http://cache-x.example/imgs")
        #expect(try RemoteStorageURL(parsing: "redis://h").leaseDuration == RemoteStorageURL.defaultLeaseDuration)
    }

    @Test(arguments: [
        "redis://h:*", "redis://h|shards=a,b", "redis://*:*|shards=a", "redis://h:*|shards=", "redis://h:*|shards=a,a",
        "redis://h:*|shards=a(0)", "redis://h:*|shards=a(x)", "redis://h:*|shards=a,,b", "redis://h|lease=0",
    ])
    func badShardsAreRefused(_ spec: String) {
        #expect(throws: ImageCoreError.self) { try RemoteStorageURL(parsing: spec) }
    }

    /// Weights share the keys out in proportion; removing a shard moves only its keys.
    @Test func rendezvousHashingSharesKeysByWeight() {
        let names = (0..<20_000).map { CacheKey("http://origin.example/img\($0).png").hash }
        let shards = [("a", 1.0), ("b", 2.0), ("c", 1.0)].map { RemoteStorageURL.Shard(name: $0.0, weight: $0.1) }
        var counts = [0, 0, 0]
        for name in names { counts[ShardSelection.pick(shards, for: name)] += 1 }
        // Expected 5000, 10 000, 5000; a standard deviation is about 60.
        #expect(
            abs(counts[0] - 5000) < 500 && abs(counts[1] - 10_000) < 500 && abs(counts[2] - 5000) < 500, "\(counts)")
        let withoutC = Array(shards.prefix(2))
        for name in names.prefix(2000) {
            let before = ShardSelection.pick(shards, for: name)
            if before != 2 { #expect(ShardSelection.pick(withoutC, for: name) == before) }
        }
    }

    /// The choice is the same in another process (a fresh seed for Swift's
    /// `Hasher`), so every machine looks where the others uploaded.
    @Test(.enabled(if: LoopbackServices.haveRedis && LoopbackServices.haveNginx, "redis-server or nginx missing"))
    func twoShardsSplitTheKeysAndADeadShardCostsOnlyItsOwn() throws {
        let origin = try NginxOrigin(count: Self.count)
        let (one, two) = (try RedisProcess(), try RedisProcess())
        let shards = [RemoteStorageURL.Shard(name: String(one.port)), RemoteStorageURL.Shard(name: String(two.port))]
        // Patient timeouts: a live shard that answers late on a loaded machine would send its keys to the origin.
        let remote = "redis://127.0.0.1:*|shards=\(one.port),\(two.port)|timeout=5000|connect-timeout=2000"
        let input = Array(origin.urls.joined(separator: "\n").utf8)
        let a = try TemporaryDirectory()
        let first = try CLI.run(["prefetch", "--remote-storage", remote], cacheDir: a.path, stdin: input, timeout: 120)
        #expect(first.status == 0, "\(first.stderr)")
        let connections = [try one.connect(), try two.connect()]
        var held = [0, 0]
        for url in origin.urls {
            let name = CacheKey(url).hash
            let expected = ShardSelection.pick(shards, for: name)
            let key = Array("imgcache:\(RemoteObject.layoutVersion):\(name)".utf8)
            for shard in 0..<2 {
                let exists = try connections[shard].command([Array("EXISTS".utf8), key]) == .integer(1)
                #expect(exists == (shard == expected), "\(url) in shard \(shard), expected \(expected)")
                if exists { held[shard] += 1 }
            }
        }
        // Binomial(100, ½): 20 or fewer is beyond six standard deviations.
        #expect(held[0] + held[1] == Self.count && held.allSatisfy { $0 > 20 }, "\(held)")

        two.stop()
        try origin.nginx.waitForLog()
        let before = origin.nginx.count("GET")
        let b = try TemporaryDirectory()
        let second = try CLI.run(
            ["prefetch", "--json", "--remote-storage", remote], cacheDir: b.path, stdin: input, timeout: 120)
        #expect(second.status == 0, "\(second.stderr)")
        try origin.nginx.waitForLog()
        #expect(origin.nginx.count("GET") - before == held[1], "only the dead shard's keys go to the origin")
        let results = records(second).map { $0["result"] as? String ?? "" }
        #expect(results.filter { $0 == "remote" }.count == held[0])
        #expect(results.filter { $0 == "downloaded" }.count == held[1])

        let stat = try CLI.run(["stat", "--json"], cacheDir: b.path)
        let perStorage = try #require(records(stat).first?["remote_counters"] as? [[String: Any]])
        let live = try #require(perStorage.first { $0["storage"] as? String == "redis://127.0.0.1:\(one.port)" })
        let dead = try #require(perStorage.first { $0["storage"] as? String == "redis://127.0.0.1:\(two.port)" })
        #expect(live["remote_hits"] as? Int == held[0] && live["remote_errors"] as? Int == 0)
        #expect(dead["remote_hits"] as? Int == 0 && (dead["remote_errors"] as? Int ?? 0) >= 1)
        let text = try CLI.run(["stat"], cacheDir: b.path).stdoutText
        #expect(
            text.contains("Remote redis://127.0.0.1:\(one.port)  hits \(held[0]), misses 0, errors 0, uploads 0"),
            "\(text)")
    }
}
