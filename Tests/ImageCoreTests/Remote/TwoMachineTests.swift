import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Two cache directories play two machines sharing one remote storage (or,
/// for comparison, one caching proxy): the second never reaches the origin.
@Suite(.serialized) struct TwoMachineTests {
    static let count = 200

    /// Machine A warms the remote from the origin; machine B is served by the
    /// remote alone, byte for byte. Each of the 400 store requests must
    /// succeed, so the store gets patient timeouts (5 s a request, 2 s to
    /// connect), as the fleet and S3 suites give theirs: at the default second
    /// (100 ms to connect) one request of a starved sanitizer run timed out is
    /// an upload or a hit the counts below miss. Sharing is tested, not speed.
    func shareThrough(_ remote: String, origin: NginxOrigin) throws -> (a: TemporaryDirectory, b: TemporaryDirectory) {
        let remote = remote + "|timeout=5000|connect-timeout=2000"
        let (a, b) = (try TemporaryDirectory(), try TemporaryDirectory())
        let input = Array(origin.urls.joined(separator: "\n").utf8)
        let first = try CLI.run(
            ["prefetch", "--json", "--remote-storage", remote], cacheDir: a.path, stdin: input, timeout: 120)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(records(first).filter { $0["result"] as? String == "downloaded" }.count == Self.count)
        try origin.nginx.waitForLog()
        #expect(origin.nginx.count("GET") == Self.count)
        #expect(try counters(a)["remote_uploads"] == Self.count)
        #expect(try counters(a)["remote_misses"] == Self.count)

        let second = try CLI.run(
            ["prefetch", "--json", "--remote-storage", remote], cacheDir: b.path, stdin: input, timeout: 120)
        #expect(second.status == 0, "\(second.stderr)")
        // Issue 35, class 3: remote hits are counted as such, not as "already cached".
        #expect(
            second.stderr.hasSuffix(
                "\(Self.count) URLs: 0 downloaded, 0 already cached, \(Self.count) from remote storage, "
                    + "0 revalidated, 0 failed, 0 skipped\n"), "\(second.stderr)")
        try origin.nginx.waitForLog()
        #expect(origin.nginx.count("GET") == Self.count, "machine B reached the origin")
        let served = records(second)
        #expect(served.filter { $0["result"] as? String == "remote" }.count == Self.count)
        for record in served {
            let url = try #require(record["url"] as? String)
            let path = try #require(record["path"] as? String)
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == origin.bytes(url), "\(url)")
        }
        let countsB = try counters(b)
        #expect(countsB["remote_hits"] == Self.count)
        #expect(countsB["downloads"] ?? 0 == 0)
        #expect(countsB["remote_uploads"] ?? 0 == 0)
        return (a, b)
    }

    @Test(.enabled(if: LoopbackServices.haveNginx, "nginx is not installed (make deps installs nginx-light)"))
    func twoMachinesShareAWebDAVRemote() throws {
        let origin = try NginxOrigin(count: Self.count)
        let dav = try WebDAVRemote()
        _ = try shareThrough(dav.url, origin: origin)
        try dav.nginx.waitForLog()
        // One PUT per entry; the lease probe's two (nginx takes no leases) aside.
        #expect(dav.nginx.log.filter { $0.contains(" PUT ") && !$0.contains("/lease-probe-") }.count == Self.count)
        #expect(dav.nginx.log.filter { $0.hasPrefix("200 GET") }.count == Self.count)
    }

    @Test(
        .enabled(
            if: LoopbackServices.haveNginx && LoopbackServices.haveRedis,
            "nginx or redis-server is not installed (make deps installs nginx-light and redis-server)"))
    func twoMachinesShareARedisRemote() throws {
        let origin = try NginxOrigin(count: Self.count)
        let redis = try RedisProcess()
        _ = try shareThrough(redis.url + "/0", origin: origin)
        let connection = try RedisConnection(host: "127.0.0.1", port: redis.port, connectTimeout: 1, timeout: 1)
        #expect(try connection.command([Array("DBSIZE".utf8)]) == .integer(Self.count))
    }

    /// The other way to share a tier: every machine sends its misses through
    /// one nginx `proxy_cache`. B's requests reach the proxy, never the origin.
    @Test(.enabled(if: LoopbackServices.haveNginx, "nginx is not installed (make deps installs nginx-light)"))
    func twoMachinesShareACachingProxy() throws {
        let origin = try NginxOrigin(count: Self.count)
        let cacheDir = try TemporaryDirectory()
        let proxy = try NginxProcess(
            serverBody: """
                location / { proxy_pass \(origin.nginx.url); proxy_cache shared; proxy_cache_valid 200 1h; }
                """, httpBody: "proxy_cache_path \(cacheDir.path) keys_zone=shared:1m;")
        let input = Array(origin.urls.joined(separator: "\n").utf8)
        for machine in [try TemporaryDirectory(), try TemporaryDirectory()] {
            let run = try CLI.run(
                ["prefetch", "--json", "--proxy", proxy.url], cacheDir: machine.path, stdin: input, timeout: 120)
            #expect(run.status == 0, "\(run.stderr)")
            for record in records(run) {
                let path = try #require(record["path"] as? String)
                #expect(
                    try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
                        == origin.bytes(record["url"] as? String ?? ""))
            }
        }
        try origin.nginx.waitForLog()
        try proxy.waitForLog()
        #expect(origin.nginx.count("GET") == Self.count)
        #expect(proxy.count("GET") == 2 * Self.count)
    }
}
