import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Servers that misbehave: each case ends promptly with its documented exit
/// status and leaves nothing in the cache.
@Suite(.serialized) struct HostileServerTests: CommandSuite {
    let fixture: CommandFixture
    let png = Fixtures.tinyPNG

    init() throws {
        fixture = try CommandFixture()
    }

    func fetch(_ arguments: String...) throws -> CLI.Result {
        try CLI.run(["fetch", "--retries", "0", "-o", "/dev/null"] + arguments, cacheDir: cache.path, timeout: 30)
    }

    func expectNothingCached(_ url: String) throws {
        #expect(try CLI.run(["stat", "-q", url], cacheDir: cache.path).status == 7)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(cache.path)/tmp").isEmpty)
    }

    @Test func aFiftyHopRedirectChainStopsAtTheLimit() throws {
        server.route("/hop") { request in
            let hop = Int(request.path.split(separator: "=").last ?? "0") ?? 0
            return .redirect(to: "/hop?n=\(hop + 1)")
        }
        let result = try fetch(server.url("/hop?n=0"))
        #expect(result.status == 4)
        #expect(server.requestCount(for: "/hop") == 11)
        try expectNothingCached(server.url("/hop?n=0"))
    }

    @Test func redirectsOffHTTPAreRefused() throws {
        try expectRedirectsRefused(["/ftp.png": "ftp://127.0.0.1/x.png", "/file.png": "file:///etc/passwd"])
    }

    /// Session 16 review: a `Location` libcurl cannot parse was exit 64, a
    /// usage error, as if the user had typed a bad URL; it is a redirect the
    /// server sent and imgcache cannot follow, exit 4 (the man page's words).
    @Test func aRedirectToAnUnparseableURLIsAnHTTPError() throws {
        try expectRedirectsRefused(
            ["/nohost.png": "http://", "/space.png": "http://a b/x.png"],
            saying: "redirected to a URL that cannot be parsed")
    }

    /// Each path redirects to its target: its fetch is an HTTP error (exit
    /// 4), saying `message` if given, and caches nothing.
    func expectRedirectsRefused(
        _ targets: KeyValuePairs<String, String>, saying message: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for (path, target) in targets {
            server.route(path, .redirect(to: target))
            let result = try fetch(server.url(path))
            #expect(result.status == 4, "\(path): \(result.stderr)", sourceLocation: sourceLocation)
            if let message {
                #expect(result.stderr.contains(message), "\(result.stderr)", sourceLocation: sourceLocation)
            }
            try expectNothingCached(server.url(path))
        }
    }

    @Test func aGzipBombIsNotInflated() throws {
        let bomb = try ScalingTests.shell("head -c 50000000 /dev/zero | gzip -9")
        server.route("/bomb.png", .ok(bomb, headers: ["Content-Encoding": "gzip", "Content-Type": "image/png"]))
        let result = try fetch(server.url("/bomb.png"))
        #expect(result.status == 5)
        try expectNothingCached(server.url("/bomb.png"))
    }

    @Test func hugeHeadersAreAnError() throws {
        server.route("/headers.png", .ok(png, headers: ["X-Filler": String(repeating: "a", count: 300_000)]))
        let result = try fetch(server.url("/headers.png"))
        #expect([3, 4].contains(result.status), "\(result.status) \(result.stderr)")
        try expectNothingCached(server.url("/headers.png"))
    }

    @Test func anEndlessBodyStopsAtTheByteCap() throws {
        let endless = png + [UInt8](repeating: 0, count: 3_000_000)
        server.route("/endless.png", .chunked(endless, chunkSize: 16_384))
        let result = try fetch("--max-bytes", "256K", server.url("/endless.png"))
        #expect(result.status == 5)
        #expect(result.stderr.contains("larger than the limit"))
        try expectNothingCached(server.url("/endless.png"))
    }

    @Test func aTerabyteAnnouncementFailsCleanly() throws {
        // Memory follows the bytes that arrived, never the announced length:
        // reserving it up front aborted the process (exit 134) and left the
        // body file behind.
        let body = png + [UInt8](repeating: 1, count: 50_000)
        server.route("/tera.png", .wrongContentLength(body, declared: 1_000_000_000_000))
        let result = try fetch("--max-bytes", "2T", server.url("/tera.png"))
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("imgcache: \(server.url("/tera.png")): "))
        try expectNothingCached(server.url("/tera.png"))
        let left = FileManager.default.enumerator(atPath: cache.path)?.compactMap { $0 as? String }.filter {
            $0.contains(".partial") || $0.hasPrefix("tmp/") && !$0.hasSuffix("/")
        }
        #expect(left == [], "\(left ?? [])")
    }

    @Test func contentLengthLiesInEitherDirection() throws {
        let jpeg = try Fixtures.bytes("baseline.jpg")
        server.route("/longer.jpg", .wrongContentLength(jpeg, declared: jpeg.count + 1000))
        server.route("/shorter.jpg", .wrongContentLength(jpeg, declared: jpeg.count / 2))
        #expect(try fetch(server.url("/longer.jpg")).status == 3)
        try expectNothingCached(server.url("/longer.jpg"))
        // Only the declared half arrives: an image cut short, refused before storing.
        #expect(try fetch(server.url("/shorter.jpg")).status == 5)
        try expectNothingCached(server.url("/shorter.jpg"))
    }
}

/// Every hostile answer, run through `fetch` with a 2 s timeout under a
/// wrapper that reports the process's peak memory: each ends with its
/// documented status, well inside its time budget, with bounded memory.
@Suite(.serialized) struct HostileServerBudgetTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var response: TestHTTPServer.Response
        var status: Int32
        var extraArguments: [String] = []
        var description: String { name }
    }

    static let png = Fixtures.tinyPNG
    static let body = png + [UInt8](repeating: 5, count: 200_000)
    static let cases: [Case] = [
        Case(name: "stall before headers", response: .stall(seconds: 30), status: 3),
        Case(name: "stall mid-body", response: .stallMidBody(body, afterBytes: 50_000, seconds: 30), status: 3),
        // A byte a second never stalls: --timeout is a stall timeout (as
        // NSURLSession's and wget's read timeout), --max-time caps the attempt.
        Case(
            name: "trickle 1 byte/s", response: .trickle(body, bytesPerSecond: 1), status: 3,
            extraArguments: ["--max-time", "2"]),
        Case(name: "close early", response: .closeEarly(body, afterBytes: 70_000), status: 3),
        Case(
            name: "Content-Length too long", response: .wrongContentLength(body, declared: body.count + 500), status: 3),
        Case(name: "Content-Length too short", response: .wrongContentLength(body, declared: 60), status: 5),
        Case(
            name: "endless chunked body",
            response: .chunked(png + [UInt8](repeating: 0, count: 40_000_000), chunkSize: 65_536),
            status: 5, extraArguments: ["--max-bytes", "1M"]),
        Case(
            name: "huge headers", response: .ok(png, headers: ["X-Filler": String(repeating: "a", count: 300_000)]),
            status: 3),
        Case(name: "redirect loop", response: .redirect(to: "/x.png"), status: 4),
        Case(name: "redirect to file://", response: .redirect(to: "file:///etc/passwd"), status: 4),
        Case(name: "redirect to ftp://", response: .redirect(to: "ftp://127.0.0.1/x.png"), status: 4),
        Case(name: "500 on every try", response: .status(500), status: 4, extraArguments: ["--retries", "2"]),
    ]

    @Test(arguments: cases) func endsInTimeWithBoundedMemory(_ hostile: Case) throws {
        let server = try TestHTTPServer()
        let cache = try TemporaryDirectory()
        server.route("/x.png", hostile.response)
        let url = server.url("/x.png")
        let measured = try Self.measure(
            ["fetch", "--retries", "0", "--timeout", "2", "-o", "/dev/null"]
                + hostile.extraArguments + [url], cacheDir: cache.path)
        server.stop()
        #expect(measured.status == hostile.status, "\(measured.stderr)")
        #expect(
            measured.stderr.hasPrefix("imgcache: \(url): ") && measured.stderr.filter { $0 == "\n" }.count == 1,
            "\(measured.stderr)")
        // Budget: the 2 s timeout plus start-up and teardown, and room for a
        // loaded machine; a hang would be 30 s.
        if upperTimeBoundsHold { #expect(measured.seconds < 12, "took \(measured.seconds) s") }
        #expect(measured.peakKiB < 150_000, "peak \(measured.peakKiB) KiB")
        #expect(try CLI.run(["stat", "-q", url], cacheDir: cache.path).status == 7)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: "\(cache.path)/tmp").filter {
                !$0.hasSuffix(".partial") && !$0.hasSuffix(".resume")
            }.isEmpty)
        StressReport.record(
            "Hostile server: \(hostile.name)", how: "HostileServerBudgetTests, fetch --timeout 2",
            outcome:
                "exit \(measured.status) in \(measured.seconds) s, peak \(measured.peakKiB / 1024) MiB, nothing cached")
    }

    /// Runs imgcache under a Python wrapper that prints its exit status,
    /// peak resident memory (getrusage of the child) and wall time.
    static func measure(
        _ arguments: [String], cacheDir: String
    ) throws -> (status: Int32, peakKiB: Int, seconds: Double, stderr: String) {
        let wrapper = """
            import resource, subprocess, sys, time
            start = time.monotonic()
            r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            sys.stderr.buffer.write(r.stderr)
            print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, round(time.monotonic() - start, 2))
            """
        let result = try CLI.run(
            ["-c", wrapper, CLI.executable.path] + arguments, cacheDir: cacheDir,
            executable: URL(fileURLWithPath: "/usr/bin/python3"))
        let fields = result.stdoutText.split(separator: " ").map {
            String($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard fields.count == 3, let status = Int32(fields[0]), let peak = Int(fields[1]),
            let seconds = Double(fields[2])
        else {
            throw CLI.TimedOut(arguments: arguments)
        }
        return (status, peak, seconds, result.stderr)
    }
}
