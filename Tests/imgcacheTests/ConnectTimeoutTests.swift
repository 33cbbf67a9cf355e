import Foundation
import TestSupport
import Testing

/// `--connect-timeout` and the conf key of that name, against a loopback
/// port whose connects hang (its accept queue is full): the fetch fails as
/// a network error naming the URL, at the timeout, not the default 10 s.
@Suite(.serialized) struct ConnectTimeoutTests {
    let listener: UnansweredListener
    let cache: TemporaryDirectory

    init() throws {
        listener = try UnansweredListener()
        cache = try TemporaryDirectory()
    }

    func fetchTimed(_ arguments: [String]) throws -> (CLI.Result, Double) {
        let started = Date()
        let result = try CLI.run(["fetch", "--retries", "0", "-o", "/dev/null"] + arguments, cacheDir: cache.path)
        return (result, Date().timeIntervalSince(started))
    }

    /// Under ThreadSanitizer the process starts slowly: the state is checked there, not the time.
    var timesAreMeaningful: Bool { ProcessInfo.processInfo.environment["IMGCACHE_TEST_SANITIZER"] != "thread" }

    @Test func theOptionEndsAHangingConnect() throws {
        let url = listener.url("/a.png")
        let (result, elapsed) = try fetchTimed(["--connect-timeout", "1", url])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("imgcache: \(url): "), "\(result.stderr)")
        #expect(result.stderr.contains("onnect") || result.stderr.contains("timed out"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        if timesAreMeaningful { #expect(elapsed > 0.9 && elapsed < 6, "\(elapsed) s") }
    }

    @Test func theConfKeyEndsAHangingConnect() throws {
        try "connect-timeout = 1\n".write(toFile: "\(cache.path)/imgcache.conf", atomically: true, encoding: .utf8)
        let (result, elapsed) = try fetchTimed([listener.url("/b.png")])
        #expect(result.status == 3, "\(result.stderr)")
        if timesAreMeaningful { #expect(elapsed > 0.9 && elapsed < 6, "\(elapsed) s") }
    }
}
