import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImageCore

/// Download leases in HTTP stores, against real servers on loopback: Apache
/// mod_dav, which honours conditional PUT, and nginx's WebDAV module, which
/// does not (its stores take no leases; a Redis store named too takes them).
@Suite(.serialized, .enabled(if: LoopbackServices.haveApache, "apache2 is not installed (make deps installs it)"))
struct HTTPLeaseTests {
    let key = CacheKey("http://origin.example/a.png")
    let network: Downloader
    let work: TemporaryDirectory

    init() throws {
        work = try TemporaryDirectory()
        network = try Downloader(configuration: Downloader.Configuration(temporaryDirectory: work.path))
    }

    func storage(_ url: String) throws -> HTTPRemoteStorage {
        HTTPRemoteStorage(try RemoteStorageURL(parsing: url + "|timeout=5000|connect-timeout=2000"), network: network)
    }

    func machine(
        _ spec: String, events: EventLog = .silent, clock: any TimeSource = SystemClock()
    ) throws -> RemoteCache {
        let patient = spec.split(separator: " ").map { $0 + "|timeout=5000|connect-timeout=2000" }
        return RemoteCache(
            try RemoteStorageURL.parseList(patient.joined(separator: " ")), statistics: Statistics(), events: events,
            network: network, clock: clock)
    }

    /// The claim, pausing between polls on the remote tier's own clock.
    func claim(_ remote: RemoteCache) async throws -> RemoteCache.DownloadClaim {
        try await remote.claimDownload(
            key, url: "http://origin.example/a.png", maxBytes: 1 << 20, inspect: { _ in LeaseTests.info },
            pause: { try await remote.clock.sleep($0) })
    }

    /// The probe finds that Apache honours `If-None-Match: *` (creating the
    /// collections a fresh mod_dav tree lacks); the lease is then taken,
    /// refused to another, renewed and released by its holder only.
    @Test func apacheHoldsLeasesThatOnlyTheirHolderRenewsOrFrees() async throws {
        let apache = try ApacheProcess()
        let (mine, theirs) = (try storage(apache.url), try storage(apache.url))
        #expect(try await mine.acquireLease(key.hash, token: "mine", duration: 600) == .acquired)
        // Asked again with its token (the first answer lost on the way): it is still the holder's.
        #expect(try await mine.acquireLease(key.hash, token: "mine", duration: 600) == .acquired)
        // The probe's object is its own, and gone once it has answered.
        #expect(apache.log.contains { $0.hasPrefix("412 PUT /imgcache/1/lease-probe-") }, "\(apache.log)")
        #expect(apache.log.contains { $0.hasPrefix("204 DELETE /imgcache/1/lease-probe-") }, "\(apache.log)")
        let objects = try FileManager.default.contentsOfDirectory(atPath: apache.objectPath(""))
        #expect(!objects.contains { $0.hasPrefix("lease-probe") }, "\(objects)")
        guard case .held(let remaining?) = try await theirs.acquireLease(key.hash, token: "theirs", duration: 600)
        else {
            Issue.record("a held lease was granted again, or its time is unknown")
            return
        }
        // Known and within the lease's own duration; that little of it has gone is a
        // time bound, which a starved ThreadSanitizer run does not keep.
        #expect(remaining > 0 && remaining <= 600)
        if upperTimeBoundsHold { #expect(remaining > 500, "\(remaining) s of 600 left") }
        let leaseFile = apache.objectPath("\(key.hash).lease")
        #expect(try await mine.renewLease(key.hash, token: "mine", duration: 1200))
        let renewed = HTTPLeaseObject(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: leaseFile))))
        #expect(renewed?.token == "mine" && renewed?.duration == 1200)
        #expect(try await !theirs.renewLease(key.hash, token: "theirs", duration: 1))
        try await theirs.releaseLease(key.hash, token: "theirs")
        #expect(FileManager.default.fileExists(atPath: leaseFile), "another's release freed the lease")
        try await mine.releaseLease(key.hash, token: "mine")
        #expect(!FileManager.default.fileExists(atPath: leaseFile))
        #expect(try await theirs.acquireLease(key.hash, token: "theirs", duration: 600) == .acquired)
    }

    /// A dead holder whose wall clock ran ahead wrote an expiry minutes
    /// away; a waiter took it for a whole lease at every poll. Judged on the
    /// waiter's own clock too (`LeaseSightings`), a lease not renewed for its
    /// duration has run out; a renewal starts the count again.
    @Test func aDeadHolderWhoseClockRanAheadIsTakenOverAfterItsDuration() async throws {
        let apache = try ApacheProcess()
        // A lease taken is read back again after `leaseSettle`, a sleep that passes its own time.
        let clock = TestClock(advancingWhenSlept: true)
        let ahead = TestClock(wall: clock.wallNow() + 300, advancingWhenSlept: true)
        let store = { (clock: TestClock) in
            HTTPRemoteStorage(
                try RemoteStorageURL(parsing: apache.url + "|timeout=5000|connect-timeout=2000"), network: self.network,
                clock: clock)
        }
        let (holder, waiter) = (try store(ahead), try store(clock))
        #expect(try await holder.acquireLease(key.hash, token: "holder", duration: 6) == .acquired)
        let held = { () async throws -> Double? in
            guard case .held(let remaining?) = try await waiter.acquireLease(key.hash, token: "waiter", duration: 6)
            else { return nil }
            return remaining
        }
        #expect(try await held().map { abs($0 - 6) < 0.001 } == true)
        clock.advance(by: 4)
        ahead.advance(by: 4)
        #expect(try await holder.renewLease(key.hash, token: "holder", duration: 6))
        #expect(try await held().map { abs($0 - 6) < 0.001 } == true, "renewed: a whole lease again")
        clock.advance(by: 5.9)
        #expect(try await held().map { abs($0 - 0.1) < 0.001 } == true, "not renewed for 5.9 s of 6")
        clock.advance(by: 0.2)
        #expect(try await waiter.acquireLease(key.hash, token: "waiter", duration: 6) == .acquired)
        #expect(try await !holder.renewLease(key.hash, token: "holder", duration: 6))
    }

    /// A lease whose holder stopped renewing it is taken over once it runs
    /// out, and by one of the machines that saw it run out, not several.
    @Test func aLeaseThatRanOutGoesToOneWaiter() async throws {
        let apache = try ApacheProcess()
        // The dead holder's lease ran out a second ago; written ten seconds
        // ago, so Apache's ETag for it is strong (weak for a second after a write).
        let leaseFile = apache.objectPath("\(key.hash).lease")
        try FileManager.default.createDirectory(
            atPath: (leaseFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let dead = HTTPLeaseObject(token: "dead", duration: 9, now: WallClock.now() - 10)
        try Data(dead.encoded).write(to: URL(fileURLWithPath: leaseFile))
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-10)], ofItemAtPath: leaseFile)
        let waiters = try (0..<4).map { _ in try storage(apache.url) }
        let answers = try await withThrowingTaskGroup(of: LeaseAnswer.self) { group in
            for (index, waiter) in waiters.enumerated() {
                group.addTask { try await waiter.acquireLease(key.hash, token: "w\(index)", duration: 3600) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.filter { $0 == .acquired }.count == 1, "\(answers)")
        let holder = HTTPLeaseObject(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: leaseFile))))
        #expect(holder?.token.hasPrefix("w") == true)
    }

    /// A damaged or hostile lease object (endless, or not a number) is
    /// nobody's lease: it is taken over at once, never waited for.
    @Test func aLeaseClaimingForeverIsTakenOver() async throws {
        let apache = try ApacheProcess()
        let leaseFile = apache.objectPath("\(key.hash).lease")
        try FileManager.default.createDirectory(
            atPath: (leaseFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        for body in [
            "imgcache-lease 1\ntoken x\nexpires 1e300\nduration 1e300\n",
            "imgcache-lease 1\ntoken x\nexpires nan\nduration 5000\n",
        ] {
            try Data(body.utf8).write(to: URL(fileURLWithPath: leaseFile))
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(-10)], ofItemAtPath: leaseFile)
            #expect(HTTPLeaseObject(parsing: Array(body.utf8)) == nil, "\(body)")
            #expect(try await storage(apache.url).acquireLease(key.hash, token: "me", duration: 60) == .acquired)
            try FileManager.default.removeItem(atPath: leaseFile)
        }
    }

    /// The step that makes the takeover single: a waiter that saw the run-out
    /// lease frees it only if it is still that version, never the new
    /// holder's lease that replaced it meanwhile.
    @Test func aWaiterLateToTheRunOutLeaseLeavesTheNewOneAlone() async throws {
        let apache = try ApacheProcess()
        let leaseFile = apache.objectPath("\(key.hash).lease")
        try FileManager.default.createDirectory(
            atPath: (leaseFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(HTTPLeaseObject(token: "dead", duration: 9, now: WallClock.now() - 10).encoded).write(
            to: URL(fileURLWithPath: leaseFile))
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-10)], ofItemAtPath: leaseFile)
        let (late, first) = (try storage(apache.url), try storage(apache.url))
        let seen = try #require(try await late.readLease(key.hash))
        #expect(seen.lease?.token == "dead" && seen.etag?.hasPrefix("\"") == true, "a strong ETag: \(seen)")
        #expect(try await first.acquireLease(key.hash, token: "first", duration: 60) == .acquired)
        #expect(try await !late.free(key.hash, ifStill: seen.etag))
        let holder = HTTPLeaseObject(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: leaseFile))))
        #expect(holder?.token == "first")
    }

    /// nginx 1.22 answers a conditional PUT over an existing object with
    /// 204: its store holds no leases (said once with -v), and a Redis store
    /// named after it holds them instead.
    @Test(
        .enabled(
            if: LoopbackServices.haveNginx && LoopbackServices.haveRedis,
            "nginx or redis-server is not installed (make deps installs nginx-light and redis-server)"))
    func nginxHoldsNoLeasesSoARedisStoreNamedTooDoes() async throws {
        let nginx = try WebDAVRemote(), store = nginx.store
        let lines = Mutex<[String]>([])
        let events = EventLog { line in lines.withLock { $0.append(line) } }
        guard case .unclaimed = try await claim(try machine(nginx.url, events: events)) else {
            Issue.record("nginx's store gave a lease")
            return
        }
        #expect(
            lines.withLock {
                $0.contains { $0.hasSuffix("holds no download leases: it ignores If-None-Match: * on PUT") }
            },
            "\(lines.withLock { $0 })")
        #expect(!FileManager.default.fileExists(atPath: remoteObjectPath(store, "") + "\(key.hash).lease"))
        let redis = try RedisProcess()
        guard case .leased(let lease) = try await claim(try machine("\(nginx.url) \(redis.url)")) else {
            Issue.record("no lease in the Redis store")
            return
        }
        #expect(lease.storage is RedisRemoteStorage)
    }

    /// Through the remote tier: the second machine is seen waiting (asleep
    /// between polls) for the first's upload to the Apache store, its next
    /// poll finds the entry, and the lease is gone after it.
    @Test func theSecondMachineWaitsForTheFirstOnesUpload() async throws {
        let apache = try ApacheProcess()
        let clock = TestClock()
        let (a, b) = (
            try machine(apache.url + "|lease=600000"), try machine(apache.url + "|lease=600000", clock: clock)
        )
        guard case .leased(let lease) = try await claim(a) else {
            Issue.record("the first machine did not get the lease")
            return
        }
        let waiter = Task { try await claim(b) }
        #expect(await clock.waitUntil { clock.sleeperCount == 1 }, "the second machine is not waiting")
        let url = "http://origin.example/a.png"
        a.upload(LeaseTests.entry(url), bytes: Fixtures.tinyPNG, key: key, url: url)
        a.end(lease)
        await a.finish()
        #expect(!FileManager.default.fileExists(atPath: apache.objectPath("\(key.hash).lease")))
        // Free to run on (a miss now fails below rather than hanging the test).
        clock.advancesWhenSlept = true
        clock.advance(by: 0.05)
        guard case .uploaded(let hit) = try await waiter.value else {
            Issue.record("the waiter did not get the uploaded entry")
            return
        }
        #expect(hit.bytes == Fixtures.tinyPNG)
        #expect(clock.sleeps == [0.05], "one poll's pause, then the entry")
    }
}
