import Foundation
import TestSupport
import Testing

@testable import ImageCore

#if canImport(Glibc)
    import Glibc
#endif

/// S3 as a remote storage and as an origin, against a real S3 server
/// (SeaweedFS) that checks every signature.
@Suite(.serialized, .enabled(if: LoopbackServices.haveWeed, Comment(rawValue: LoopbackServices.weedMissing)))
struct S3RemoteTests {
    let s3: SeaweedFSProcess
    let origin: TestHTTPServer
    let png = Fixtures.tinyPNG

    init() throws {
        s3 = try SeaweedFSProcess.shared.get()
        origin = try TestHTTPServer()
        origin.route("/a.png", .ok(png))
    }

    /// A fetch of `/a.png` through `store` (given `patient` timeouts unless
    /// it names its own), with the server's environment and `extra` over it.
    func fetch(
        _ store: String, cache: TemporaryDirectory, environment extra: [String: String] = [:],
        _ options: [String] = ["-v", "--json"]
    ) throws -> CLI.Result {
        let store = store.contains("|timeout=") ? store : Self.patient(store)
        return try CLI.run(
            ["fetch"] + options + ["--remote-storage", store, origin.url("/a.png")], cacheDir: cache.path,
            environment: s3.environment.merging(extra) { $1 })
    }

    /// `store` with patient timeouts (5 s a request, 2 s to connect), as
    /// the fleet, lease and policy suites give theirs: SeaweedFS on a loaded
    /// machine has taken seconds to answer (c102b57), and a request timed out
    /// at the default second is only a strike, said with -v: the upload these
    /// tests look for was not made. They show what the store holds, not its speed.
    static func patient(_ store: String) -> String { store + "|timeout=5000|connect-timeout=2000" }

    @Test func anEntryMakesTheRoundTripAndNoSecretIsShown() throws {
        let bucket = try s3.makeBucket()
        let store = "s3://\(bucket)/team/cache"
        let a = try fetch(store, cache: try TemporaryDirectory())
        #expect(a.status == 0, "\(a.stderr)")
        #expect(a.stderr.contains("uploaded to remote storage s3://\(bucket)/team/cache"), "\(a.stderr)")
        let object = s3.object(
            bucket, "team/cache/imgcache/\(RemoteObject.layoutVersion)/\(CacheKey(origin.url("/a.png")).hash)")
        #expect(object.flatMap(RemoteObject.decode)?.bytes == png)
        let bCache = try TemporaryDirectory()
        let b = try fetch(store, cache: bCache)
        #expect(records(b).first?["result"] as? String == "remote", "\(b.stderr)")
        #expect(origin.requestCount(for: "/a.png") == 1)
        let stat = try CLI.run(
            ["stat", "--remote-storage", store], cacheDir: bCache.path, environment: s3.environment)
        let statJSON = try CLI.run(
            ["stat", "--json", "--remote-storage", store], cacheDir: bCache.path, environment: s3.environment)
        #expect(stat.stdoutText.contains("s3://\(bucket)/team/cache"), "\(stat.stdoutText)")
        for output in [a.stderr, b.stderr, b.stdoutText, stat.stdoutText, statJSON.stdoutText] {
            #expect(!output.contains(SeaweedFSProcess.secretKey))
        }
    }

    @Test func credentialsComeFromAProfileInTheSharedFile() throws {
        let bucket = try s3.makeBucket()
        let work = try TemporaryDirectory()
        try """
        [default]
        aws_access_key_id = AKIDWRONG
        aws_secret_access_key = wrong
        # the team's
        [imgcache-ci]
        aws_access_key_id = \(SeaweedFSProcess.accessKey)
        aws_secret_access_key = \(SeaweedFSProcess.secretKey)
        """.write(toFile: "\(work.path)/credentials", atomically: true, encoding: .utf8)
        let profile = [
            "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_PROFILE": "imgcache-ci",
            "AWS_SHARED_CREDENTIALS_FILE": "\(work.path)/credentials",
        ]
        let store = "s3://\(bucket)"
        let a = try fetch(store, cache: try TemporaryDirectory(), environment: profile)
        #expect(a.stderr.contains("uploaded to remote storage"), "\(a.stderr)")
        let b = try fetch(store, cache: try TemporaryDirectory(), environment: profile)
        #expect(records(b).first?["result"] as? String == "remote", "\(b.stderr)")
    }

    @Test func aWrongSecretIsReportedOnceAndTheOriginServes() throws {
        let bucket = try s3.makeBucket()
        let run = try fetch(
            "s3://\(bucket)/p", cache: try TemporaryDirectory(), environment: ["AWS_SECRET_ACCESS_KEY": "not-it"], [])
        #expect(run.status == 0 && run.stdout == png, "\(run.stderr)")
        #expect(
            run.stderr == "imgcache: remote storage s3://\(bucket)/p: HTTP 403 SignatureDoesNotMatch, skipped\n",
            "\(run.stderr)")
    }

    @Test func aMissingBucketIsReportedOnceAndTheOriginServes() throws {
        let run = try fetch("s3://no-such-bucket-here", cache: try TemporaryDirectory(), [])
        #expect(run.status == 0 && run.stdout == png, "\(run.stderr)")
        #expect(
            run.stderr == "imgcache: remote storage s3://no-such-bucket-here: HTTP 404 NoSuchBucket, skipped\n",
            "\(run.stderr)")
    }

    /// A stalled object costs each request for it one timeout (the lookup's
    /// GET and the upload's PUT), said with -v only: the store stays in use.
    @Test func aStalledEndpointCostsOneTimeoutPerRequest() throws {
        let stalled = try TestHTTPServer()
        let hash = CacheKey(origin.url("/a.png")).hash
        let object = "/bucket/imgcache/\(RemoteObject.layoutVersion)/\(hash)"
        stalled.route(object, .stall(seconds: 5))
        let store = "s3://bucket|endpoint=\(stalled.url(""))|timeout=300"
        let run = try fetch(store, cache: try TemporaryDirectory(), [])
        #expect(run.status == 0 && run.stdout == png, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        #expect(stalled.requests.filter { $0.path == object }.map(\.method) == ["GET", "PUT"])
    }

    @Test func aReadOnlyStoreIsReadButNeverWritten() throws {
        let bucket = try s3.makeBucket()
        let run = try fetch("s3://\(bucket)|read-only", cache: try TemporaryDirectory())
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("request started: PUT"), "\(run.stderr)")
        #expect(
            s3.object(bucket, "imgcache/\(RemoteObject.layoutVersion)/\(CacheKey(origin.url("/a.png")).hash)") == nil)
    }

    @Test func shardsSpreadKeysOverTwoBuckets() throws {
        let name = try s3.makeBucket("sha")
        let other = "shb" + name.dropFirst(3)
        try s3.request("PUT", "/\(other)")
        let images = try NginxOrigin(count: 12)
        let store = "s3://sh*\(name.dropFirst(3))|shards=a,b"
        let list = images.urls.joined(separator: "\n") + "\n"
        let cache1 = try TemporaryDirectory()
        let warm = try CLI.run(
            ["prefetch", "--remote-storage", Self.patient(store), "-"], cacheDir: cache1.path,
            stdin: Array(list.utf8), environment: s3.environment)
        #expect(warm.status == 0, "\(warm.stderr)")
        let owners = images.urls.map { url in
            [name, other].filter {
                s3.object($0, "imgcache/\(RemoteObject.layoutVersion)/\(CacheKey(url).hash)") != nil
            }
        }
        #expect(owners.allSatisfy { $0.count == 1 }, "\(owners)")
        #expect(Set(owners.joined()) == [name, other], "\(owners)")
    }

    @Test func anS3URLIsAnOriginWithHTTPCaching() throws {
        let bucket = try s3.makeBucket()
        let bytes = try FleetTests.image(3)
        try s3.put(bucket, "photos/cat 1.png", bytes)
        let url = "s3://\(bucket)/photos/cat%201.png"
        let cache = try TemporaryDirectory()
        let first = try CLI.run(["fetch", url], cacheDir: cache.path, environment: s3.environment)
        #expect(first.status == 0 && first.stdout == bytes, "\(first.stderr)")
        let stat = try CLI.run(["stat", "--json", url], cacheDir: cache.path)
        let record = try #require(records(stat).first)
        #expect(record["url"] as? String == url && record["etag"] != nil, "\(record)")
        // SeaweedFS sends no Cache-Control: the entry is revalidated, and the object's ETag answers 304.
        let again = try CLI.run(
            ["fetch", "-v", "--refresh", url], cacheDir: cache.path, environment: s3.environment)
        #expect(again.status == 0 && again.stdout == bytes, "\(again.stderr)")
        #expect(again.stderr.contains("revalidated (304 Not Modified)"), "\(again.stderr)")
        let purge = try CLI.run(["purge", url], cacheDir: cache.path)
        #expect(purge.status == 0 && (purge.stdoutText + purge.stderr).contains("removed \(url)"), "\(purge.stderr)")
    }

    @Test func aPrivateObjectRefusedIsExit4WithTheS3Code() throws {
        let bucket = try s3.makeBucket()
        try s3.put(bucket, "secret.png", png)
        let cache2 = try TemporaryDirectory()
        let run = try CLI.run(
            ["fetch", "s3://\(bucket)/secret.png"], cacheDir: cache2.path,
            environment: s3.environment.merging(["AWS_SECRET_ACCESS_KEY": "nope"]) { $1 })
        #expect(run.status == 4, "\(run.stderr)")
        #expect(
            run.stderr == "imgcache: s3://\(bucket)/secret.png: HTTP 403 SignatureDoesNotMatch\n", "\(run.stderr)")
        let cache3 = try TemporaryDirectory()
        let prefetch = try CLI.run(
            ["prefetch", "-"], cacheDir: cache3.path,
            stdin: Array("s3://\(bucket)/secret.png\n".utf8), environment: s3.environment)
        #expect(prefetch.status == 0, "\(prefetch.stderr)")
    }

    @Test func anHTTPSOriginSignedAsCurlSignsIt() throws {
        let bucket = try s3.makeBucket()
        try s3.put(bucket, "b.png", png)
        let url = "\(s3.endpoint)/\(bucket)/b.png"
        let cache4 = try TemporaryDirectory()
        let cache5 = try TemporaryDirectory()
        let signed = try CLI.run(
            [
                "fetch", "--aws-sigv4", "aws:amz:us-east-1:s3", "-u",
                "\(SeaweedFSProcess.accessKey):\(SeaweedFSProcess.secretKey)", url,
            ], cacheDir: cache4.path)
        #expect(signed.status == 0 && signed.stdout == png, "\(signed.stderr)")
        let unsigned = try CLI.run(["fetch", url], cacheDir: cache5.path)
        #expect(unsigned.status == 4 && unsigned.stderr.contains("HTTP 403 AccessDenied"), "\(unsigned.stderr)")
        // The conf key signs as the flag does, with the AWS credentials found.
        let cache = try TemporaryDirectory()
        try "aws-sigv4 = aws:amz:us-east-1:s3\n".write(
            toFile: "\(cache.path)/imgcache.conf", atomically: true, encoding: .utf8)
        let configured = try CLI.run(["fetch", url], cacheDir: cache.path, environment: s3.environment)
        #expect(configured.status == 0 && configured.stdout == png, "\(configured.stderr)")
    }

    /// Six lease requests for one new key at once: the server's conditional
    /// PUT is atomic, so exactly one wins, however long the others wait in it.
    /// The lease lasts an hour: a request that waits longer than the lease
    /// (51 s passed in a loaded run, with 30 s leases) rightly takes over one
    /// that ran out.
    @Test func racingLeaseRequestsHaveOneWinner() async throws {
        let bucket = try s3.makeBucket()
        var settings = AWSSettings()
        settings.endpoint = s3.endpoint
        settings.credentials = AWSCredentials(
            accessKeyID: SeaweedFSProcess.accessKey, secretAccessKey: SeaweedFSProcess.secretKey)
        let configured = try RemoteStorageURL(parsing: "s3://\(bucket)")
        let scratch = try TemporaryDirectory()
        let loader = try Downloader(configuration: .init(temporaryDirectory: scratch.path))
        defer { loader.close() }
        let stores = (0..<6).map { _ in S3RemoteStorage(configured, network: loader, aws: settings) }
        // Answers in the stores' order, not in the order they finish: the
        // loser below must be another store than the winner.
        let answers = try await withThrowingTaskGroup(of: (Int, LeaseAnswer).self) { group in
            for (index, store) in stores.enumerated() {
                group.addTask { (index, try await store.acquireLease("race", token: "t\(index)", duration: 3600)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }.sorted { $0.0 < $1.0 }.map(\.1)
        }
        #expect(answers.filter { $0 == .acquired }.count == 1, "\(answers)")
        #expect(answers.filter { if case .held = $0 { true } else { false } }.count == 5, "\(answers)")
        let loser = (answers.firstIndex(of: .acquired)! + 1) % 6
        #expect(try await !stores[loser].renewLease("race", token: "t\(loser)", duration: 3600))
    }

    /// A lease that ran out (its holder died) is taken over by `If-Match`,
    /// and not a moment before: its expiry is judged on the store's clock.
    @Test func aLeaseThatRanOutIsTakenOver() async throws {
        let bucket = try s3.makeBucket()
        var settings = AWSSettings()
        settings.endpoint = s3.endpoint
        settings.credentials = AWSCredentials(
            accessKeyID: SeaweedFSProcess.accessKey, secretAccessKey: SeaweedFSProcess.secretKey)
        let scratch = try TemporaryDirectory()
        let loader = try Downloader(configuration: .init(temporaryDirectory: scratch.path))
        defer { loader.close() }
        let clock = TestClock()
        let store = S3RemoteStorage(
            try RemoteStorageURL(parsing: "s3://\(bucket)"), network: loader, aws: settings, clock: clock)
        #expect(try await store.acquireLease("k", token: "dead", duration: 5) == .acquired)
        clock.advance(by: 4.9)
        guard case .held(let remaining?) = try await store.acquireLease("k", token: "alive", duration: 30) else {
            Issue.record("a lease with 0.1 s left was not held")
            return
        }
        #expect(abs(remaining - 0.1) < 0.001)
        clock.advance(by: 0.2)
        #expect(try await store.acquireLease("k", token: "alive", duration: 30) == .acquired)
        #expect(try await !store.renewLease("k", token: "dead", duration: 30))
        #expect(try await store.renewLease("k", token: "alive", duration: 30))
        #expect(try await store.acquireLease("k", token: "other", duration: 30) != .acquired)
        try await store.releaseLease("k", token: "alive")
        #expect(try await store.acquireLease("k", token: "other", duration: 30) == .acquired)
    }
}
