import Foundation
import TestSupport
import Testing

@testable import ImageCore

#if canImport(Glibc)
    import Glibc
#endif

/// The Redis backend's own cases: a password that never shows, a server that
/// is gone, a value that is not an entry; and `purge --remote` on WebDAV.
@Suite(
    .serialized,
    .enabled(
        if: LoopbackServices.haveRedis && LoopbackServices.haveNginx,
        "redis-server or nginx is not installed (make deps installs both)"))
struct RedisRemoteTests {
    let origin: TestHTTPServer
    let png = Fixtures.tinyPNG

    init() throws {
        origin = try TestHTTPServer()
        origin.route("/a.png", .ok(png))
    }

    @Test func aPasswordIsUsedButNeverShown() throws {
        let redis = try RedisProcess(password: "s3cret-pw")
        let remote = "redis://default:s3cret-pw@127.0.0.1:\(redis.port)/3"
        let aCache = try TemporaryDirectory()
        let a = try CLI.run(
            ["fetch", "-v", "--remote-storage", remote, origin.url("/a.png")], cacheDir: aCache.path)
        let bCache = try TemporaryDirectory()
        let b = try CLI.run(
            ["fetch", "-v", "--json", "--remote-storage", remote, origin.url("/a.png")], cacheDir: bCache.path)
        #expect(records(b).first?["result"] as? String == "remote", "\(b.stderr)")
        #expect(origin.requestCount(for: "/a.png") == 1)
        let stat = try CLI.run(["stat", "--remote-storage", remote], cacheDir: bCache.path)
        #expect(stat.stdoutText.contains("redis://default:***@127.0.0.1:\(redis.port)/3"))
        for output in [a.stderr, b.stderr, b.stdoutText, stat.stdoutText] { #expect(!output.contains("s3cret-pw")) }
        let wrongCache = try TemporaryDirectory()
        let wrong = try CLI.run(
            ["fetch", "-v", "--remote-storage", "redis://default:nope@127.0.0.1:\(redis.port)", origin.url("/a.png")],
            cacheDir: wrongCache.path)
        #expect(wrong.status == 0)
        #expect(wrong.stderr.contains("not asked again") && !wrong.stderr.contains("nope@"), "\(wrong.stderr)")
    }

    @Test func aStoppedRedisAndAForeignValueFallBackToTheOrigin() throws {
        let stoppedCache = try TemporaryDirectory()
        // Held refusing for the run: a port only free when chosen could be
        // taken by another test's server meanwhile, and answer.
        let dead = try RefusingPort()
        let stopped = try CLI.run(
            ["fetch", "--remote-storage", "redis://127.0.0.1:\(dead.port)", origin.url("/a.png")],
            cacheDir: stoppedCache.path)
        #expect(stopped.status == 0 && stopped.stdout == png)
        withExtendedLifetime(dead) {}
        let redis = try RedisProcess()
        let connection = try RedisConnection(host: "127.0.0.1", port: redis.port, connectTimeout: 1, timeout: 1)
        let key = "imgcache:\(RemoteObject.layoutVersion):\(CacheKey(origin.url("/a.png")).hash)"
        _ = try connection.command([Array("SET".utf8), Array(key.utf8), Array("not an entry".utf8)])
        let foreignCache = try TemporaryDirectory()
        let foreign = try CLI.run(
            ["fetch", "-v", "--remote-storage", redis.url, origin.url("/a.png")],
            cacheDir: foreignCache.path)
        #expect(foreign.status == 0 && foreign.stdout == png)
        #expect(foreign.stderr.contains("ignored the entry"))
        guard case .string(let replaced) = try connection.command([Array("GET".utf8), Array(key.utf8)]) else {
            Issue.record("no entry after the upload")
            return
        }
        #expect(RemoteObject.decode(replaced)?.bytes == png)
    }

    /// A store that takes leases but refuses entries (a Redis user allowed
    /// only the lease keys, as a full Redis without eviction refuses values
    /// of an image's size): the machine whose upload is refused releases its
    /// lease, or the next machine would wait it out for an entry not coming.
    @Test func aRefusedUploadReleasesItsLease() throws {
        let redis = try RedisProcess()
        let admin = try redis.connect()
        let user = ["ACL", "SETUSER", "lessee", "on", ">lease-pw", "~imgcache:*:lease:*", "%R~*", "+@all"]
        _ = try admin.command(user.map { Array($0.utf8) })
        let remote = "redis://lessee:lease-pw@127.0.0.1:\(redis.port)|lease=60000"
        let cache = try TemporaryDirectory()
        let run = try CLI.run(["fetch", "--remote-storage", remote, origin.url("/a.png")], cacheDir: cache.path)
        #expect(run.status == 0 && run.stdout == png)
        #expect(run.stderr.contains("refused a write (SET redis://lessee:***@"), "\(run.stderr)")
        let lease = "imgcache:\(RemoteObject.layoutVersion):lease:\(CacheKey(origin.url("/a.png")).hash)"
        #expect(try admin.command([Array("EXISTS".utf8), Array(lease.utf8)]) == .integer(0))
    }

    /// A server that takes the connection and never answers: the message
    /// says the command timed out, not hiredis's bare strerror(EAGAIN).
    @Test func aCommandThatTimesOutSaysSo() throws {
        let (listener, port) = try LoopbackSocket.bound()
        defer { close(listener) }
        #expect(listen(listener, 8) == 0)
        let connection = try RedisConnection(host: "127.0.0.1", port: port, connectTimeout: 1, timeout: 0.05)
        #expect {
            try connection.command([Array("GET".utf8), Array("k".utf8)])
        } throws: { error in
            (error as? ImageCoreError)?.message == "Redis: timed out (no answer in 50 ms)"
                && (error as? ImageCoreError)?.transportFault == .timedOut
        }
    }

    @Test func purgeRemoteDeletesFromWritableStores() throws {
        let dav = try WebDAVRemote(), store = dav.store
        let cache = try TemporaryDirectory()
        #expect(
            try CLI.run(["fetch", "--remote-storage", dav.url, origin.url("/a.png")], cacheDir: cache.path).status == 0)
        let path = remoteObjectPath(store, origin.url("/a.png"))
        #expect(FileManager.default.fileExists(atPath: path))
        let readOnly = try CLI.run(
            ["purge", "--remote", "--remote-storage", dav.url + "|read-only", origin.url("/a.png")],
            cacheDir: cache.path)
        // Only a read-only store: --remote could delete nothing, so it is refused (issue 26).
        #expect(readOnly.status == 64 && FileManager.default.fileExists(atPath: path))
        let purge = try CLI.run(
            ["purge", "-v", "--remote", "--remote-storage", dav.url, origin.url("/a.png")], cacheDir: cache.path)
        #expect(purge.status == 0, "\(purge.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(purge.stderr.contains("removed from \(dav.url)"), "\(purge.stderr)")
        #expect(try CLI.run(["purge", "--remote"], cacheDir: cache.path).status == 64)
    }
}
