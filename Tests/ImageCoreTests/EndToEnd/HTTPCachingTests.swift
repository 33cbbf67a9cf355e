import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImageCore

/// HTTP caching, retries, connections and request hygiene, asserted on what
/// the loopback server received.
@Suite(.serialized) struct HTTPCachingTests: CommandSuite {
    let fixture: CommandFixture
    let v1 = Fixtures.tinyPNG + [1]
    let v2 = Fixtures.tinyPNG + [2, 2]
    let lastModified = HTTPDate.format(1_700_000_000)

    init() throws {
        fixture = try CommandFixture()
    }

    func result(_ output: CLI.Result) throws -> String? {
        let record = try JSONSerialization.jsonObject(with: Data(output.stdout)) as? [String: Any]
        return record?["result"] as? String
    }

    /// Serves what `current` returns, with ETag and Last-Modified, and
    /// answers 304 when the request's If-None-Match matches, as servers do.
    func serveRevalidatable(
        _ path: String, cacheControl: String,
        current: @escaping @Sendable () -> (bytes: [UInt8], etag: String)
    ) {
        server.route(path) { [lastModified] request in
            let (bytes, etag) = current()
            let headers = ["ETag": etag, "Last-Modified": lastModified, "Cache-Control": cacheControl]
            if request.header("If-None-Match") == etag { return .status(304, headers: headers) }
            return .ok(bytes, headers: headers)
        }
    }

    func requests(_ path: String) -> [TestHTTPServer.Request] {
        server.requests.filter { $0.path == path }
    }

    @Test func aFreshEntryCostsNoRequest() throws {
        serveRevalidatable("/a.png", cacheControl: "max-age=60") { [v1] in (v1, "\"v1\"") }
        #expect(try result(run("fetch", "--json", server.url("/a.png"))) == "downloaded")
        #expect(try result(run("fetch", "--json", server.url("/a.png"))) == "disk")
        #expect(requests("/a.png").count == 1)
    }

    @Test func aStaleEntryIsRevalidatedWithBothValidatorsAndKeptOn304() throws {
        serveRevalidatable("/a.png", cacheControl: "max-age=0") { [v1] in (v1, "\"v1\"") }
        #expect(try run("fetch", server.url("/a.png")).stdout == v1)
        let second = try run("fetch", "--json", server.url("/a.png"))
        #expect(try result(second) == "revalidated")
        let conditional = try #require(requests("/a.png").last)
        #expect(requests("/a.png").count == 2)
        #expect(conditional.header("If-None-Match") == "\"v1\"")
        #expect(conditional.header("If-Modified-Since") == lastModified)
        #expect(try run("fetch", "--offline", server.url("/a.png")).stdout == v1)
    }

    @Test func aChangedResourceReplacesTheEntry() throws {
        let current = Mutex<(bytes: [UInt8], etag: String)>((v1, "\"v1\""))
        serveRevalidatable("/a.png", cacheControl: "max-age=0") { current.withLock { $0 } }
        #expect(try run("fetch", server.url("/a.png")).stdout == v1)
        current.withLock { $0 = (v2, "\"v2\"") }
        let changed = try run("fetch", "--json", server.url("/a.png"))
        #expect(try result(changed) == "downloaded")
        #expect(requests("/a.png").last?.header("If-None-Match") == "\"v1\"")
        #expect(try run("fetch", "--offline", server.url("/a.png")).stdout == v2)
        #expect(try run("stat", "--json", server.url("/a.png")).stdoutText.contains("\"etag\":\"\\\"v2\\\"\""))
    }

    @Test func noStoreIsServedButNeverKept() throws {
        serveRevalidatable("/a.png", cacheControl: "max-age=0") { [v1] in (v1, "\"v1\"") }
        #expect(try run("fetch", server.url("/a.png")).status == 0)
        server.route("/a.png", .ok(v2, headers: ["Cache-Control": "no-store"]))
        let served = try run("fetch", server.url("/a.png"))
        #expect(served.status == 0 && served.stdout == v2)
        // The older copy is gone too: it is outdated.
        #expect(try run("stat", "-q", server.url("/a.png")).status == 7)
        #expect(try run("fetch", server.url("/a.png")).status == 0)
        #expect(requests("/a.png").count == 3)
    }

    @Test func offlineServesStaleUnlessTheServerSaidMustRevalidate() throws {
        serveRevalidatable("/strict.png", cacheControl: "max-age=0, must-revalidate") { [v1] in (v1, "\"v1\"") }
        serveRevalidatable("/lax.png", cacheControl: "max-age=0") { [v1] in (v1, "\"v1\"") }
        _ = try run("fetch", server.url("/strict.png"), server.url("/lax.png"))
        let strict = try run("fetch", "--offline", server.url("/strict.png"))
        #expect(strict.status == 7)
        #expect(strict.stderr.contains("must-revalidate"))
        let lax = try run("fetch", "--offline", server.url("/lax.png"))
        #expect(lax.status == 0 && lax.stdout == v1)
        #expect(server.requestCount == 2)
    }

    @Test func varyKeepsVariantsApart() throws {
        server.route("/hello.png") { [v1, v2] request in
            let french = request.header("Accept-Language") == "fr"
            return .ok(french ? v2 : v1, headers: ["Vary": "Accept-Language", "Cache-Control": "max-age=60"])
        }
        #expect(try run("fetch", "-H", "Accept-Language: en", server.url("/hello.png")).stdout == v1)
        #expect(try run("fetch", "-H", "Accept-Language: en", server.url("/hello.png")).stdout == v1)
        #expect(requests("/hello.png").count == 1)
        #expect(try run("fetch", "-H", "Accept-Language: fr", server.url("/hello.png")).stdout == v2)
        #expect(try run("fetch", "-H", "Accept-Language: fr", server.url("/hello.png")).stdout == v2)
        #expect(requests("/hello.png").count == 2)
        #expect(try run("fetch", "--offline", "-H", "Accept-Language: en", server.url("/hello.png")).status == 7)
    }

    @Test func retryAfterIsHonoured() throws {
        server.route("/busy.png", sequence: [.status(503, headers: ["Retry-After": "1"]), .ok(v1)])
        let fetched = try run("fetch", server.url("/busy.png"))
        #expect(fetched.status == 0 && fetched.stdout == v1)
        let times = requests("/busy.png").map(\.receivedAt)
        #expect(times.count == 2)
        #expect(times.count == 2 && times[1] - times[0] >= 0.95)
        // Transient failures are retried --retries times, then reported, never remembered.
        server.route("/down.png", .status(502))
        #expect(try run("fetch", "--retries", "1", server.url("/down.png")).status == 4)
        #expect(requests("/down.png").count == 2)
        #expect(try run("fetch", "--retries", "0", server.url("/down.png")).status == 4)
        #expect(requests("/down.png").count == 3)
    }

    @Test func refreshRevalidatesAFreshEntryUnlessImmutable() throws {
        serveRevalidatable("/a.png", cacheControl: "max-age=60") { [v1] in (v1, "\"v1\"") }
        serveRevalidatable("/b.png", cacheControl: "max-age=60, immutable") { [v1] in (v1, "\"v1\"") }
        _ = try run("fetch", server.url("/a.png"), server.url("/b.png"))
        #expect(try result(run("fetch", "--refresh", "--json", server.url("/a.png"))) == "revalidated")
        #expect(try result(run("fetch", "--refresh", "--json", server.url("/b.png"))) == "disk")
        #expect(requests("/a.png").count == 2 && requests("/b.png").count == 1)
    }

    @Test func staleIfErrorServesTheOldCopyWhenTheOriginFails() throws {
        serveRevalidatable("/flag.png", cacheControl: "max-age=0") { [v1] in (v1, "\"v1\"") }
        serveRevalidatable("/header.png", cacheControl: "max-age=0, stale-if-error=600") { [v1] in (v1, "\"v1\"") }
        _ = try run("fetch", server.url("/flag.png"), server.url("/header.png"))
        server.route("/flag.png", .status(503))
        server.route("/header.png", .status(500))
        #expect(try run("fetch", "--retries", "0", server.url("/flag.png")).status == 4)
        let flagged = try run("fetch", "--retries", "0", "--stale-if-error", server.url("/flag.png"))
        #expect(flagged.status == 0 && flagged.stdout == v1)
        let allowed = try run("fetch", "--retries", "0", server.url("/header.png"))
        #expect(allowed.status == 0 && allowed.stdout == v1)
    }

    @Test func staleWhileRevalidateServesAtOnceAndRevalidatesBeforeExit() throws {
        serveRevalidatable("/a.png", cacheControl: "max-age=0, stale-while-revalidate=600") { [v1] in (v1, "\"v1\"") }
        _ = try run("fetch", server.url("/a.png"))
        let served = try run("fetch", "-v", server.url("/a.png"))
        #expect(served.status == 0 && served.stdout == v1)
        #expect(served.stderr.contains("served stale from disk, revalidating"))
        #expect(requests("/a.png").count == 2)
        #expect(requests("/a.png").last?.header("If-None-Match") == "\"v1\"")
    }

    @Test func twoHundredURLsOnOneHostUseAtMostSixConnections() throws {
        server.route("/many.png", .ok(v1))
        let list = (0..<200).map { server.url("/many.png?n=\($0)") }.joined(separator: "\n")
        // --max-per-host defaults to the concurrency (16 here), so the cap is given.
        let prefetch = try CLI.run(
            ["prefetch", "-j", "16", "--max-per-host", "6"], cacheDir: cache.path, stdin: Array(list.utf8))
        #expect(prefetch.status == 0, "\(prefetch.stderr)")
        #expect(server.requestCount == 200)
        #expect(server.connectionCount <= 6, "\(server.connectionCount) connections")
    }

    @Test func cookiesRoundTripThroughTheJar() throws {
        let jar = try TemporaryDirectory()
        server.route("/login.png", .ok(v1, headers: ["Set-Cookie": "session=abc123; Path=/"]))
        server.route("/private.png", .ok(v2))
        let login = try run("fetch", "--cookie-jar", "\(jar.path)/cookies.txt", server.url("/login.png"))
        #expect(login.status == 0, "\(login.stderr)")
        let next = try run("fetch", "--cookie-jar", "\(jar.path)/cookies.txt", server.url("/private.png"))
        #expect(next.status == 0, "\(next.stderr)")
        #expect(requests("/private.png").first?.header("Cookie") == "session=abc123")
        #expect(try String(contentsOfFile: "\(jar.path)/cookies.txt", encoding: .utf8).contains("abc123"))
    }

    @Test func credentialsStayWithTheirHostAcrossRedirects() throws {
        let other = try TestHTTPServer()
        other.route("/x.png", .ok(v1))
        server.route("/r.png", .redirect(to: other.url("/x.png")))
        let fetched = try run("fetch", "-u", "user:secret", "-H", "X-Api-Key: k", server.url("/r.png"))
        #expect(fetched.status == 0 && fetched.stdout == v1)
        #expect(requests("/r.png").first?.header("Authorization")?.hasPrefix("Basic ") == true)
        let redirected = try #require(other.requests.first)
        #expect(redirected.header("Authorization") == nil)
    }

    @Test func aSelfSignedCertificateFailsWithoutInsecure() throws {
        let tls = try TLSTestServer(body: v1)
        let refused = try run("fetch", "--retries", "0", tls.url("/x.png"))
        #expect(refused.status == 3)
        #expect(refused.stderr.hasPrefix("imgcache: \(tls.url("/x.png")): "))
        let insecure = try run("fetch", "-k", tls.url("/x.png"))
        #expect(insecure.status == 0 && insecure.stdout == v1)
    }
}
