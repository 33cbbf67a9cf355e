import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImageCore

/// An S3 store under the least-privilege policy a fleet is given
/// (`s3:GetObject` and `s3:PutObject`, no `s3:ListBucket`), where a GET of a
/// missing key is 403 `AccessDenied`, and S3's other 403s: wrong or expired
/// credentials, writes the policy refuses. `S3PolicyServer` answers as AWS
/// does, which SeaweedFS cannot.
@Suite(.serialized)
struct S3PolicyTests {
    let origin: TestHTTPServer

    init() throws {
        origin = try TestHTTPServer()
    }

    /// `count` origin images, each its own; their URLs, in order.
    func images(_ prefix: String, _ count: Int) throws -> [String] {
        try (0..<count).map { index in
            origin.route("/\(prefix)\(index).png", .ok(try FleetTests.image(index)))
            return origin.url("/\(prefix)\(index).png")
        }
    }

    func originGets(_ urls: [String]) -> Int {
        urls.map { origin.requestCount(for: String($0.dropFirst(origin.url("").count))) }.reduce(0, +)
    }

    /// The lines a run said on stderr as `imgcache: …` (warnings and errors; not the summary).
    func warnings(_ run: CLI.Result) -> [String] {
        run.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("imgcache: ") }
    }

    /// A prefetch of `urls` through `store`, given patient timeouts: under
    /// a loaded test run the default second per request timed a store
    /// request out, and the store was turned off for that instead of for
    /// what the test shows (the policy's answers, not the store's speed).
    func prefetch(
        _ urls: [String], store: String, _ s3: S3PolicyServer, cache: TemporaryDirectory, _ options: [String] = []
    ) throws -> CLI.Result {
        try CLI.run(
            ["prefetch"] + options + ["--remote-storage", store + "|timeout=5000|connect-timeout=2000", "-"],
            cacheDir: cache.path,
            stdin: Array((urls.joined(separator: "\n") + "\n").utf8), environment: s3.environment)
    }

    /// Two machines one after the other: the first finds nothing (403
    /// `AccessDenied` for every key) and uploads, the second hits. N URLs
    /// cost the origin N GETs over both runs, not 2N; neither run says a
    /// word on stderr, and releasing leases without `s3:DeleteObject` is
    /// no error.
    @Test func aFleetWithoutListBucketGetsHits() throws {
        let s3 = try S3PolicyServer(policy: .getAndPut)
        let urls = try images("fleet", 8)
        let store = "s3://\(s3.bucket)/team|endpoint=\(s3.endpoint)"
        let (a, b) = (try TemporaryDirectory(), try TemporaryDirectory())
        let first = try prefetch(urls, store: store, s3, cache: a, ["-j", "4"])
        #expect(first.status == 0 && warnings(first).isEmpty, "\(first.stderr)")
        // The first request (the store's probe) was a miss, and an answer: every lookup went to the store.
        let lookups = s3.server.requests.filter { $0.method == "GET" && !$0.path.hasSuffix(".lease") }
        #expect(lookups.count >= urls.count, "\(s3.log)")
        let entries = urls.map { "team/imgcache/\(RemoteObject.layoutVersion)/\(CacheKey($0).hash)" }
        #expect(entries.allSatisfy { s3.object($0) != nil }, "\(s3.keys)")
        let second = try prefetch(urls, store: store, s3, cache: b, ["-j", "4"])
        #expect(second.status == 0 && warnings(second).isEmpty, "\(second.stderr)")
        #expect(originGets(urls) == urls.count)
        let (countedA, countedB) = (try counters(a), try counters(b))
        #expect(countedA["remote_uploads"] == urls.count && countedA["remote_errors"] ?? 0 == 0, "\(countedA)")
        #expect(countedB["remote_hits"] == urls.count && countedB["remote_errors"] ?? 0 == 0, "\(countedB)")
        // The leases were released by writing them run out: no DELETE is allowed, and none is left live.
        for key in s3.keys where key.hasSuffix(".lease") {
            let lease = try #require(HTTPLeaseObject(parsing: s3.object(key) ?? []), "\(key)")
            #expect(lease.remaining(now: Date().timeIntervalSince1970) <= 0, "\(key)")
        }
        #expect(!s3.log.contains { $0.hasPrefix("DELETE") && $0.hasSuffix(".lease") }, "\(s3.log)")
    }

    /// Credentials refused after the store has answered (a session token
    /// that ran out mid-run) turn it off at once, not after three strikes:
    /// one warning naming the store and the code, no secret anywhere, and
    /// the store is not asked for the URLs after those already out.
    @Test(arguments: ["ExpiredToken", "InvalidAccessKeyId", "SignatureDoesNotMatch"])
    func credentialsRefusedMidRunTurnTheStoreOffAtOnce(code: String) throws {
        let s3 = try S3PolicyServer(policy: .init(listBucket: true, putObject: true, deleteObject: true))
        s3.refuseCredentials(code, fromRequest: 4)
        let urls = try images("creds", 12)
        let cache = try TemporaryDirectory()
        let run = try prefetch(
            urls, store: "s3://\(s3.bucket)|endpoint=\(s3.endpoint)|read-only", s3, cache: cache, ["-j", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            warnings(run) == ["imgcache: remote storage s3://\(s3.bucket): HTTP 403 \(code), skipped"], "\(run.stderr)")
        #expect(s3.server.requestCount < urls.count, "\(s3.log)")
        #expect(originGets(urls) == urls.count)
        let stat = try CLI.run(["stat", "--json"], cacheDir: cache.path)
        for output in [run.stderr, run.stdoutText, stat.stdoutText, stat.stderr] {
            #expect(!output.contains(S3PolicyServer.secretKey))
        }
        // Every refused request was already out when the first refusal came: none was sent after it.
        #expect(try counters(cache)["remote_errors"] == s3.server.requestCount - 3)
    }

    /// A PUT refused with `AccessDenied` (a policy without `s3:PutObject`):
    /// lookups answered (misses), the first upload is refused, and the
    /// store is off for the rest of the run, with one warning: no other
    /// upload is tried.
    @Test func aWriteRefusedWithAccessDeniedTurnsTheStoreOff() throws {
        let s3 = try S3PolicyServer(policy: .init(listBucket: false, putObject: false, deleteObject: false))
        let urls = try images("readonly", 3)
        let entries = Set(urls.map { "PUT imgcache/\(RemoteObject.layoutVersion)/\(CacheKey($0).hash)" })
        // The first download the origin serves at once, the others once this
        // run has said the store is off (its warning, written after the
        // store is marked off): the refusal answered by the server is not
        // yet read by the run, and on a loaded machine the others' uploads
        // went out meanwhile. As many transfer slots as URLs: store requests
        // take slots too, so the upload is never queued behind them.
        let work = try TemporaryDirectory()
        let stderrPath = "\(work.path)/stderr"
        let refusalSeen: @Sendable () -> Bool = {
            (try? String(contentsOfFile: stderrPath, encoding: .utf8))?.contains("refused a write") == true
        }
        let served = Mutex(0)
        for (index, url) in urls.enumerated() {
            let image = try FleetTests.image(index)
            origin.route(String(url.dropFirst(origin.url("").count))) { _ in
                let earlier = served.withLock { count in
                    defer { count += 1 }
                    return count
                }
                let deadline = Date().addingTimeInterval(waitPatience)
                while earlier > 0 && Date() < deadline && !refusalSeen() { usleep(10_000) }
                return .ok(image)
            }
        }
        let cache = try TemporaryDirectory()
        let list = "\(work.path)/urls"
        try Data((urls.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: list))
        // No stall timeout for the origin's held answers: they wait for a
        // state (up to `waitPatience`, 5 min under a sanitizer), and with
        // the default 15 s a held GET timed out on a loaded machine would be
        // asked again, one origin GET more than the URLs.
        let process = try CLI.start(
            [
                "prefetch", "-j", "\(urls.count)", "--timeout", "3600", "--remote-storage",
                "s3://\(s3.bucket)|endpoint=\(s3.endpoint)|timeout=5000|connect-timeout=2000", "-",
            ],
            cacheDir: cache.path, stdinPath: list, environment: s3.environment, stderrPath: stderrPath)
        process.waitUntilExit()
        let run = CLI.Result(
            stdout: [], stderr: try String(contentsOfFile: stderrPath, encoding: .utf8),
            status: process.terminationStatus)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(warnings(run).count == 1, "\(run.stderr)")
        #expect(
            warnings(run).first?.hasPrefix("imgcache: remote storage s3://\(s3.bucket)") == true
                && warnings(run).first?.hasSuffix(
                    " refused a write (s3://\(s3.bucket): HTTP 403 AccessDenied); nothing more is uploaded to it in this run"
                )
                    == true,
            "\(run.stderr)")
        #expect(s3.log.filter(entries.contains).count == 1, "\(s3.log)")
        #expect(originGets(urls) == urls.count)
        #expect(try counters(cache)["remote_uploads"] ?? 0 == 0)
    }

    /// No AWS credentials found (none in the environment or a credentials
    /// file: an instance role, which imgcache does not read): every request
    /// goes unsigned, and AWS answers each with 403 `AccessDenied`, which
    /// for an unsigned GET says nothing of the key. A read-only store must
    /// say so once and be skipped, not miss every lookup silently for ever
    /// (a fleet that never shares).
    @Test func unsignedLookupsRefusedWithAccessDeniedTurnTheStoreOff() throws {
        let s3 = try S3PolicyServer(policy: .getAndPut)
        let urls = try images("unsigned", 3)
        let cache = try TemporaryDirectory()
        let environment = s3.environment.merging(["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""]) { $1 }
        let run = try CLI.run(
            [
                "prefetch", "-j", "1", "--remote-storage",
                "s3://\(s3.bucket)|endpoint=\(s3.endpoint)|read-only|timeout=5000", "-",
            ],
            cacheDir: cache.path, stdin: Array((urls.joined(separator: "\n") + "\n").utf8), environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            warnings(run) == [
                "imgcache: remote storage s3://\(s3.bucket): HTTP 403 AccessDenied (sent unsigned: no AWS credentials "
                    + "in the environment, the credentials file or the config file), skipped"
            ],
            "\(run.stderr)")
        #expect(s3.server.requestCount < urls.count, "\(s3.log)")
        #expect(originGets(urls) == urls.count)
    }

    func store(
        _ s3: S3PolicyServer, _ loader: Downloader, clock: any TimeSource = SystemClock()
    ) throws
        -> S3RemoteStorage
    {
        var settings = AWSSettings()
        settings.endpoint = s3.endpoint
        settings.credentials = AWSCredentials(
            accessKeyID: S3PolicyServer.accessKey, secretAccessKey: S3PolicyServer.secretKey)
        return S3RemoteStorage(
            try RemoteStorageURL(parsing: "s3://\(s3.bucket)"), network: loader, aws: settings, clock: clock)
    }

    /// The lease protocol under `s3:GetObject` and `s3:PutObject` only: a
    /// missing lease read back is 403 `AccessDenied`, a DELETE is refused,
    /// so the holder releases by writing the lease run out, and the next
    /// machine takes it over at once.
    @Test func leasesNeedOnlyGetObjectAndPutObject() async throws {
        let s3 = try S3PolicyServer(policy: .getAndPut)
        let scratch = try TemporaryDirectory()
        let loader = try Downloader(configuration: .init(temporaryDirectory: scratch.path))
        defer { loader.close() }
        let clock = TestClock()
        let (a, b) = (try store(s3, loader, clock: clock), try store(s3, loader, clock: clock))
        #expect(try await a.get("nothing", maxBytes: 1 << 20) == nil)
        #expect(try await a.acquireLease("k", token: "a", duration: 30) == .acquired)
        guard case .held(let remaining?) = try await b.acquireLease("k", token: "b", duration: 30),
            abs(remaining - 30) < 0.001
        else {
            Issue.record("a live lease was not held")
            return
        }
        #expect(try await a.renewLease("k", token: "a", duration: 30))
        #expect(try await !b.renewLease("k", token: "b", duration: 30))
        try await a.releaseLease("k", token: "a")
        #expect(try await b.acquireLease("k", token: "b", duration: 30) == .acquired)
        #expect(try await !a.renewLease("k", token: "a", duration: 30))
        // A renewal or take-over of a lease that is gone is refused, not an error.
        #expect(try await !a.renewLease("gone", token: "a", duration: 30))
    }

    /// A holder whose wall clock ran ahead (by minutes: S3 still signs
    /// its requests) writes an expiry minutes away; its lease reads as a
    /// whole lease left at every poll, so when it died the others waited
    /// those minutes. A lease not renewed (its token and expiry unchanged)
    /// for its whole duration on the waiter's own clock has run out
    /// (`LeaseSightings`); a live holder's renewal starts the count again.
    @Test func aDeadHolderWhoseClockRanAheadIsTakenOverAfterItsDuration() async throws {
        let s3 = try S3PolicyServer(policy: .getAndPut)
        let scratch = try TemporaryDirectory()
        let loader = try Downloader(configuration: .init(temporaryDirectory: scratch.path))
        defer { loader.close() }
        let clock = TestClock()
        let ahead = TestClock(wall: clock.wallNow() + 300)
        let (holder, waiter) = (try store(s3, loader, clock: ahead), try store(s3, loader, clock: clock))
        #expect(try await holder.acquireLease("k", token: "holder", duration: 6) == .acquired)
        let held = { () async throws -> Double? in
            guard case .held(let remaining?) = try await waiter.acquireLease("k", token: "waiter", duration: 6)
            else { return nil }
            return remaining
        }
        #expect(try await held().map { abs($0 - 6) < 0.001 } == true)
        clock.advance(by: 4)
        ahead.advance(by: 4)
        // Renewed: a new version, a whole lease again from now.
        #expect(try await holder.renewLease("k", token: "holder", duration: 6))
        #expect(try await held().map { abs($0 - 6) < 0.001 } == true)
        clock.advance(by: 5.9)
        #expect(try await held().map { abs($0 - 0.1) < 0.001 } == true, "not renewed for 5.9 s of 6")
        clock.advance(by: 0.2)
        #expect(try await waiter.acquireLease("k", token: "waiter", duration: 6) == .acquired)
        #expect(try await !holder.renewLease("k", token: "holder", duration: 6))
    }

    /// A policy without `s3:GetObject`: every GET is 403 `AccessDenied`, so
    /// every lookup is a miss, and the store holds no leases (the lease
    /// probe cannot find its own object): a lease nobody else can read
    /// would make every other machine wait it out.
    @Test func withoutGetObjectTheStoreHoldsNoLeases() async throws {
        let s3 = try S3PolicyServer(
            policy: .init(listBucket: false, getObject: false, putObject: true, deleteObject: true))
        let scratch = try TemporaryDirectory()
        let loader = try Downloader(configuration: .init(temporaryDirectory: scratch.path))
        defer { loader.close() }
        let store = try store(s3, loader)
        #expect(
            try await store.acquireLease("k", token: "a", duration: 30)
                == .unsupported("it cannot read back the probe's object"))
        #expect(!s3.keys.contains { $0.hasSuffix(".lease") }, "\(s3.keys)")
    }
}
