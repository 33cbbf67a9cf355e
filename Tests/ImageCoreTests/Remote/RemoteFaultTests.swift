import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImageCore

/// A remote that is down, slow or wrong never fails a fetch: each case falls
/// back to the origin (the loopback test server, which counts requests) and
/// exits 0. The remote is nginx's WebDAV module unless the case needs a fault
/// nginx cannot play.
@Suite(.serialized, .enabled(if: LoopbackServices.haveNginx, "nginx is not installed (make deps installs nginx-light)"))
struct RemoteFaultTests {
    let origin: TestHTTPServer
    let png = Fixtures.tinyPNG

    init() throws {
        origin = try TestHTTPServer()
        origin.route("/a.png", .ok(png))
        origin.route("/b.png", .ok(png + [7]))
    }

    func fetch(_ url: String, remote: String, cache: TemporaryDirectory) throws -> CLI.Result {
        try CLI.run(["fetch", "-v", "--remote-storage", remote, url], cacheDir: cache.path)
    }

    /// Machine A stores `url` in the remote; returns the object's path.
    func warm(_ url: String, _ dav: NginxProcess, _ store: TemporaryDirectory) throws -> String {
        let first = try fetch(url, remote: dav.url, cache: try TemporaryDirectory())
        #expect(first.status == 0, "\(first.stderr)")
        let path = remoteObjectPath(store, url)
        #expect(FileManager.default.fileExists(atPath: path))
        return path
    }

    /// Machine B fetches `url`: the origin serves it, exit 0, and the remote's
    /// object is replaced by a good one.
    func expectFallback(_ url: String, remote: String, expected: [UInt8], originRequests: Int) throws -> CLI.Result {
        let result = try fetch(url, remote: remote, cache: try TemporaryDirectory())
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == expected)
        #expect(origin.requestCount(for: String(url.dropFirst(origin.url("").count))) == originRequests)
        return result
    }

    @Test func aStoppedRemoteIsAskedOnceThenTheOriginServes() throws {
        let dav = try WebDAVRemote()
        dav.stop()
        let cache = try TemporaryDirectory()
        let paths = (0..<20).map { "/s\($0).png" }
        for path in paths { origin.route(path, .ok(png)) }
        let input = Array(paths.map { origin.url($0) }.joined(separator: "\n").utf8)
        let run = try CLI.run(["prefetch", "-v", "--remote-storage", dav.url], cacheDir: cache.path, stdin: input)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.components(separatedBy: "not asked again").count == 2, "\(run.stderr)")
        // The first lookup probes it; the others wait for that and then skip it; no upload is tried.
        #expect(
            run.stderr.components(separatedBy: "request started: GET \(dav.url)/imgcache").count == 2, "\(run.stderr)")
        #expect(!run.stderr.contains("request started: PUT"))
        #expect(paths.allSatisfy { origin.requestCount(for: $0) == 1 })
        #expect(try counters(cache)["remote_errors"] == 1)
    }

    /// One stalled lookup costs its own timeout: the origin serves, and the
    /// store stays in use (the entry is uploaded to it).
    @Test func aStallingRemoteCostsItsTimeoutOnly() throws {
        let stalling = try TestHTTPServer()
        let object = "/imgcache/\(RemoteObject.layoutVersion)/\(CacheKey(origin.url("/a.png")).hash)"
        stalling.route(object) { $0.method == "GET" ? .stall(seconds: 5) : .status(201) }
        let result = try expectFallback(
            origin.url("/a.png"), remote: stalling.url("") + "|timeout=300", expected: png,
            originRequests: 1)
        #expect(!result.stderr.contains("not asked again"), "\(result.stderr)")
        #expect(result.stderr.contains("the storage stays in use"), "\(result.stderr)")
        #expect(stalling.requests.filter { $0.path == object && $0.method == "PUT" }.count == 1)
    }

    /// A writable store that stalls every request costs the download its
    /// lookup's timeout, not the 10 s a lease request gets, twice: no lease
    /// is asked of a store whose last request timed out. The upload is
    /// still tried (the store's second strike).
    @Test func aStallingStoreIsAskedForNoLease() throws {
        let stalling = try TestHTTPServer()
        stalling.routeOthers { _ in .stall(seconds: 15) }
        _ = try expectFallback(
            origin.url("/a.png"), remote: stalling.url("") + "|timeout=300", expected: png, originRequests: 1)
        #expect(stalling.requests.map(\.method) == ["GET", "PUT"], "\(stalling.requests.map(\.path))")
    }

    /// The store's timeout where its answers that do not stall must all
    /// arrive in time: every one missed is a strike and a line more than the
    /// test counts. 300 ms is little for the loopback server, whose threads
    /// (one new per connection, after each stall) share two cores with the
    /// parallel suites under a sanitizer; S3PolicyTests' server missed even
    /// the default second once (c4b97e2). A stall lasts longer still.
    static let patientStore = "|timeout=2000"

    /// `count` origin images, each its own; their URLs, in order.
    func images(_ prefix: String, _ count: Int) -> [String] {
        (0..<count).map { index in
            origin.route("/\(prefix)\(index).png", .ok(png + [UInt8(index)]))
            return origin.url("/\(prefix)\(index).png")
        }
    }

    /// Where an HTTP store keeps `url`'s entry, as a path on its server.
    func objectPath(_ url: String) -> String { "/imgcache/\(RemoteObject.layoutVersion)/\(CacheKey(url).hash)" }

    /// The fleet bench's fault (issue 34): a store that kept an early PUT,
    /// and later one lookup, past its timeout. Each cost only its own
    /// request: every other key was still looked up and uploaded there.
    @Test func aStoreThatStallsOnceStaysInUseForTheOtherKeys() throws {
        let store = try TestHTTPServer()
        let urls = images("once", 6)
        let puts = Mutex(0)
        for (index, url) in urls.enumerated() {
            store.route(objectPath(url)) { request in
                if request.method == "GET" { return index == 3 ? .stall(seconds: 10) : .status(404) }
                let first = puts.withLock { count in
                    defer { count += 1 }
                    return count == 0
                }
                return first ? .stall(seconds: 10) : .status(201)
            }
        }
        let cache = try TemporaryDirectory()
        let run = try CLI.run(
            ["prefetch", "-v", "-j", "1", "--remote-storage", store.url("") + Self.patientStore], cacheDir: cache.path,
            stdin: Array(urls.joined(separator: "\n").utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("not asked again") && !run.stderr.contains(", skipped"), "\(run.stderr)")
        #expect(run.stderr.components(separatedBy: "the storage stays in use").count == 3, "\(run.stderr)")
        for url in urls {
            let asked = store.requests.filter { $0.path == objectPath(url) }
            #expect(asked.filter { $0.method == "GET" }.count == 1, "\(url)")
            #expect(asked.filter { $0.method == "PUT" }.count == 1, "\(url)")
            #expect(origin.requestCount(for: String(url.dropFirst(origin.url("").count))) == 1)
        }
        let counted = try counters(cache)
        #expect(counted["remote_errors"] == 2 && counted["remote_uploads"] == 5, "\(counted)")
    }

    /// A store that never answers is probed alone, one timeout at a time,
    /// and off after three: three requests in all, however many lookups
    /// were waiting (six at once here), so the run's cost is three timeouts.
    @Test func aStoreThatStallsEveryRequestIsOffAfterThree() throws {
        let store = try TestHTTPServer()
        let urls = images("never", 30)
        for url in urls { store.route(objectPath(url), .stall(seconds: 5)) }
        let cache = try TemporaryDirectory()
        let run = try CLI.run(
            ["prefetch", "-v", "-j", "6", "--remote-storage", store.url("") + "|timeout=300|read-only"],
            cacheDir: cache.path, stdin: Array(urls.joined(separator: "\n").utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(store.requestCount == StoreHealth.strikeLimit, "\(store.requests.map(\.path))")
        #expect(run.stderr.components(separatedBy: "not asked again").count == 2, "\(run.stderr)")
        #expect(run.stderr.components(separatedBy: "(3 failures in a row), skipped").count == 2, "\(run.stderr)")
        #expect(urls.allSatisfy { origin.requestCount(for: String($0.dropFirst(origin.url("").count))) == 1 })
        #expect(try counters(cache)["remote_errors"] == StoreHealth.strikeLimit)
    }

    /// A store that refuses (403) is off after its first answer: asking it
    /// again buys nothing. One request, one line.
    @Test func aStoreAnswering403IsOffAtOnce() throws {
        let store = try TestHTTPServer()
        let urls = images("refused", 12)
        for url in urls { store.route(objectPath(url), .status(403)) }
        let cache = try TemporaryDirectory()
        let run = try CLI.run(
            ["prefetch", "-v", "-j", "6", "--remote-storage", store.url("")], cacheDir: cache.path,
            stdin: Array(urls.joined(separator: "\n").utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(store.requestCount == 1, "\(store.requests.map { "\($0.method) \($0.path)" })")
        #expect(run.stderr.components(separatedBy: "HTTP 403 Forbidden, skipped").count == 2, "\(run.stderr)")
        #expect(try counters(cache)["remote_errors"] == 1)
    }

    @Test func aRemoteAnswering500IsSkipped() throws {
        let failing = try TestHTTPServer()
        failing.route("/imgcache/\(RemoteObject.layoutVersion)/\(CacheKey(origin.url("/a.png")).hash)", .status(500))
        _ = try expectFallback(origin.url("/a.png"), remote: failing.url(""), expected: png, originRequests: 1)
    }

    @Test(arguments: ["bit-flipped", "truncated"])
    func aDamagedRemoteObjectIsIgnoredAndReplaced(damage: String) throws {
        let dav = try WebDAVRemote(), store = dav.store
        let url = origin.url("/a.png")
        let path = try warm(url, dav.nginx, store)
        var object = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        if damage == "bit-flipped" { object[object.count - 20] ^= 0x10 } else { object.removeLast(30) }
        try Data(object).write(to: URL(fileURLWithPath: path))
        let result = try expectFallback(url, remote: dav.url, expected: png, originRequests: 2)
        #expect(result.stderr.contains("ignored the entry in remote storage"), "\(result.stderr)")
        // The run waited for its upload's answer: nginx wrote the object before answering.
        let replaced = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(RemoteObject.decode(replaced)?.bytes == png)
    }

    @Test func anObjectHoldingAnotherKeysEntryIsIgnored() throws {
        let dav = try WebDAVRemote(), store = dav.store
        let (a, b) = (origin.url("/a.png"), origin.url("/b.png"))
        let path = try warm(a, dav.nginx, store)
        let other = remoteObjectPath(store, b)
        try FileManager.default.copyItem(atPath: path, toPath: other)
        let result = try expectFallback(b, remote: dav.url, expected: png + [7], originRequests: 1)
        #expect(result.stderr.contains("another key"), "\(result.stderr)")
    }

    @Test func aReadOnlyRemoteIsNeverWritten() throws {
        let dav = try WebDAVRemote()
        let cache = try TemporaryDirectory()
        let result = try fetch(origin.url("/a.png"), remote: dav.url + "|read-only", cache: cache)
        #expect(result.status == 0)
        try dav.nginx.waitForLog()
        #expect(dav.nginx.count("GET") == 1)
        #expect(dav.nginx.count("PUT") == 0)
        #expect(try counters(cache)["remote_uploads"] ?? 0 == 0)
    }

    /// A stale remote entry lends its validators: the origin answers 304,
    /// and the renewed entry goes back to the remote, where a third machine
    /// finds it fresh.
    @Test func aStaleRemoteEntryIsRevalidatedAndRenewed() throws {
        let dav = try WebDAVRemote(), store = dav.store
        origin.route("/r.png") { [png] request in
            if request.header("If-None-Match") == "\"v1\"" {
                return .status(304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=3600"])
            }
            return .ok(png, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=0"])
        }
        let url = origin.url("/r.png")
        let path = try warm(url, dav.nginx, store)
        let secondCache = try TemporaryDirectory()
        let second = try CLI.run(
            ["fetch", "--json", "--remote-storage", dav.url, url], cacheDir: secondCache.path)
        #expect(records(second).first?["result"] as? String == "revalidated")
        let requests = origin.requests.filter { $0.path == "/r.png" }
        #expect(requests.count == 2)
        #expect(requests.last?.header("If-None-Match") == "\"v1\"")
        // The run waited for its upload's answer: nginx wrote the object before answering.
        let renewed = try #require(RemoteObject.decode(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))))
        #expect((renewed.entry.expires ?? 0) > Date().timeIntervalSince1970 + 3000)
        let thirdCache = try TemporaryDirectory()
        let third = try CLI.run(
            ["fetch", "--json", "--remote-storage", dav.url, url], cacheDir: thirdCache.path)
        #expect(records(third).first?["result"] as? String == "remote")
        #expect(origin.requests.filter { $0.path == "/r.png" }.count == 2)
    }
}
