import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Timeouts as users expect them on slow networks: `--timeout` gives up on
/// a transfer that stalls, not on one that is slow but steady; `--max-time`
/// caps an attempt; `--connect-timeout` ends a connect that hangs; a retry
/// resumes a broken-off body in the same run.
@Suite(.serialized) struct SlowNetworkTests: CommandSuite {
    let fixture: CommandFixture
    /// A PNG signature and 200 000 bytes that differ along the way.
    let large = Fixtures.tinyPNG + (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    init() throws {
        fixture = try CommandFixture()
    }

    /// Runs `fetch` and measures its wall time.
    func timedFetch(_ arguments: String...) throws -> (result: CLI.Result, seconds: Double) {
        let start = Date()
        let result = try run(["fetch"] + arguments)
        return (result, Date().timeIntervalSince(start))
    }

    @Test func aStalledBodyFailsAfterTheStallTimeout() throws {
        // Stalled until the server stops: the 2 s stall timeout is what ends it.
        server.route("/stall.png", .stallMidBody(large, afterBytes: 50_000, seconds: 3600))
        defer { server.stop() }
        let (result, seconds) = try timedFetch(
            "--retries", "0", "--timeout", "2", "-o", "/dev/null", server.url("/stall.png"))
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("no data for 2s"), "\(result.stderr)")
        #expect(seconds > 1.5, "took \(seconds) s")
        if upperTimeBoundsHold { #expect(seconds < 12, "took \(seconds) s") }
    }

    @Test func aSlowButSteadyBodyOutlastsTheStallTimeout() throws {
        // 80 KB at 20 KB/s: 4 s, twice the timeout, with a byte every 50 ms.
        let body = Array(large.prefix(80_000))
        server.route("/steady.png", .trickle(body, bytesPerSecond: 20_000))
        let (result, seconds) = try timedFetch("--retries", "0", "--timeout", "2", server.url("/steady.png"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == body)
        #expect(seconds > 3, "took \(seconds) s")
    }

    /// Against a loopback port whose connects hang (its accept queue is
    /// full): a network error naming the URL at the timeout, not after the
    /// default 10 s. Under ThreadSanitizer processes start slowly: the state
    /// is checked there, not the time.
    @Test func connectTimeoutEndsAHangingConnect() throws {
        let listener = try UnansweredListener()
        let url = listener.url("/a.png")
        let (result, seconds) = try timedFetch("--retries", "0", "--connect-timeout", "1", "-o", "/dev/null", url)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("imgcache: \(url): "), "\(result.stderr)")
        #expect(result.stderr.contains("onnect") || result.stderr.contains("timed out"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        if upperTimeBoundsHold { #expect(seconds > 0.9 && seconds < 6, "took \(seconds) s") }
        // The configuration file's key of the same name.
        try Data("connect-timeout = 1\n".utf8).write(to: URL(fileURLWithPath: "\(cache.path)/imgcache.conf"))
        let (conf, confSeconds) = try timedFetch("--retries", "0", "-o", "/dev/null", listener.url("/b.png"))
        #expect(conf.status == 3, "\(conf.stderr)")
        if upperTimeBoundsHold { #expect(confSeconds > 0.9 && confSeconds < 6, "took \(confSeconds) s") }
    }

    @Test func maxTimeCapsTheWholeAttempt() throws {
        server.route("/steady.png", .trickle(Array(large.prefix(80_000)), bytesPerSecond: 20_000))
        let (result, seconds) = try timedFetch(
            "--retries", "0", "--max-time", "2", "-o", "/dev/null", server.url("/steady.png"))
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("timed out"), "\(result.stderr)")
        #expect(seconds > 1.5, "took \(seconds) s")
        if upperTimeBoundsHold { #expect(seconds < 12, "took \(seconds) s") }
    }

    @Test func maxTimeFromTheConfigurationFile() throws {
        try Data("max-time = 2\n".utf8).write(to: URL(fileURLWithPath: "\(cache.path)/imgcache.conf"))
        server.route("/steady.png", .trickle(Array(large.prefix(80_000)), bytesPerSecond: 20_000))
        let (result, seconds) = try timedFetch("--retries", "0", "-o", "/dev/null", server.url("/steady.png"))
        #expect(result.status == 3, "\(result.stderr)")
        if upperTimeBoundsHold { #expect(seconds < 12, "took \(seconds) s") }
    }

    /// Routes `path` to `cut` for a request without Range (which stalls at
    /// its cut until the server stops) and to `whole` for a resume: a
    /// `--timeout 1` that fires early on a loaded machine, before the cut
    /// or even before the headers, is then one more stalled body or a
    /// resume from an earlier byte, never a whole download in its place.
    func routeResumable(_ path: String, cut: TestHTTPServer.Response, whole: TestHTTPServer.Response) {
        server.route(path) { request in request.header("Range") == nil ? cut : whole }
    }

    /// The byte offsets the resumes asked for, in order: each past the one
    /// before (the body went over the wire about once), none past the cut.
    func expectResumesFollowOn(
        _ path: String, cut: Int, validator: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let asked = server.requests.filter { $0.path == path }
        let offsets = asked.compactMap { $0.header("Range") }.map { range in
            Int(range.dropFirst("bytes=".count).dropLast()) ?? -1
        }
        #expect(
            !offsets.isEmpty, "no resume: \(asked.map { $0.header("Range") ?? "-" })", sourceLocation: sourceLocation)
        #expect(
            offsets.allSatisfy { $0 > 0 && $0 <= cut } && offsets == offsets.sorted()
                && Set(offsets).count == offsets.count,
            "\(offsets)", sourceLocation: sourceLocation)
        #expect(
            asked.filter { $0.header("Range") != nil }.allSatisfy { $0.header("If-Range") == validator },
            sourceLocation: sourceLocation)
    }

    @Test func aStalledBodyResumesInTheSameRunWithAStrongETag() throws {
        routeResumable(
            "/big.png", cut: .ranged(large, etag: "\"r1\"", cutAfter: 70_000, stallAtCut: 3600),
            whole: .ranged(large, etag: "\"r1\""))
        defer { server.stop() }
        let (result, _) = try timedFetch("-v", "--timeout", "1", server.url("/big.png"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == large)
        #expect(result.stderr.contains("resumed"), "\(result.stderr)")
        // The file went over the wire about once: 70 000 bytes, then the
        // rest (an earlier offset if the timeout fired before the cut).
        expectResumesFollowOn("/big.png", cut: 70_000, validator: "\"r1\"")
    }

    @Test func aLastModifiedASecondBeforeDateIsStrongEnoughToResume() throws {
        // RFC 9110 §8.8.2.2: a Last-Modified at least a second before the
        // response's Date is a strong validator.
        let modified = "Mon, 01 Jan 2024 00:00:00 GMT"
        routeResumable(
            "/dated.png", cut: .ranged(large, etag: nil, lastModified: modified, cutAfter: 60_000, stallAtCut: 3600),
            whole: .ranged(large, etag: nil, lastModified: modified))
        defer { server.stop() }
        let (result, _) = try timedFetch("--timeout", "1", server.url("/dated.png"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == large)
        expectResumesFollowOn("/dated.png", cut: 60_000, validator: modified)
    }

    @Test func aLastModifiedAsRecentAsDateIsNotResumed() throws {
        // The first answer stalls at its cut until the server stops; any
        // later one is whole (a timeout that fires early is one more).
        server.route(
            "/recent.png",
            sequence: [
                .ranged(large, etag: nil, lastModified: "now", cutAfter: 60_000, stallAtCut: 3600),
                .ranged(large, etag: nil, lastModified: "now"),
            ])
        defer { server.stop() }
        let (result, _) = try timedFetch("--timeout", "1", server.url("/recent.png"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == large)
        #expect(server.requests.count >= 2)
        #expect(server.requests.allSatisfy { $0.header("Range") == nil })
    }
}
