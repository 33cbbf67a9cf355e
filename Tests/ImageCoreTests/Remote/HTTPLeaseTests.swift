import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImageCore

/// Download leases in HTTP stores, against real servers on loopback: Apache
/// mod_dav and nginx's WebDAV module, whose leases are collections made by
/// MKCOL (nginx's only with MKCOL in `dav_methods`; without it its stores
/// take no leases, and a Redis store named too takes them).
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

    /// The probe finds that Apache makes collections one at a time (making
    /// the collections a fresh mod_dav tree lacks); the lease is then taken,
    /// refused to another, renewed and released by its holder only.
    @Test func apacheHoldsLeasesThatOnlyTheirHolderRenewsOrFrees() async throws {
        let apache = try ApacheProcess()
        let (mine, theirs) = (try storage(apache.url), try storage(apache.url))
        #expect(try await mine.acquireLease(key.hash, token: "mine", duration: 600) == .acquired)
        // Asked again with its token (the first answer lost on the way): it is still the holder's.
        #expect(try await mine.acquireLease(key.hash, token: "mine", duration: 600) == .acquired)
        // The probe's collection is its own, made once, refused once, and gone once it has answered.
        for line in [
            "201 MKCOL /imgcache/1/lease-probe-", "405 MKCOL /imgcache/1/lease-probe-",
            "204 DELETE /imgcache/1/lease-probe-",
        ] {
            #expect(apache.log.contains { $0.hasPrefix(line) }, "\(line): \(apache.log)")
        }
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
        let leaseFile = apache.objectPath("\(key.hash).lease.d/holder")
        #expect(try await mine.renewLease(key.hash, token: "mine", duration: 1200))
        let renewed = HTTPLeaseObject(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: leaseFile))))
        #expect(renewed?.token == "mine" && renewed?.duration == 1200)
        #expect(try await !theirs.renewLease(key.hash, token: "theirs", duration: 1))
        try await theirs.releaseLease(key.hash, token: "theirs")
        #expect(FileManager.default.fileExists(atPath: leaseFile), "another's release freed the lease")
        try await mine.releaseLease(key.hash, token: "mine")
        #expect(!FileManager.default.fileExists(atPath: apache.objectPath("\(key.hash).lease.d")))
        #expect(try await theirs.acquireLease(key.hash, token: "theirs", duration: 600) == .acquired)
    }

    /// Many machines ask for one lease at once, on a new key each round:
    /// exactly one holds it each time. (The conditional PUT the lease was
    /// taken by before had its racing winners caught by the read-back here,
    /// on an idle machine; the stalled machine below is what it missed.)
    @Test func racingMachinesGetOneHolder() async throws {
        let apache = try ApacheProcess()
        let machines = 24, rounds = 20
        let loaders = try (0..<machines).map { _ in
            try Downloader(configuration: Downloader.Configuration(temporaryDirectory: work.path))
        }
        defer { for loader in loaders { loader.close() } }
        let stores = try loaders.map {
            HTTPRemoteStorage(
                try RemoteStorageURL(parsing: apache.url + "|timeout=30000|connect-timeout=5000"), network: $0)
        }
        var holders: [Int] = []
        for round in 0..<rounds {
            let name = CacheKey("http://origin.example/race\(round).png").hash
            let answers = try await withThrowingTaskGroup(of: LeaseAnswer.self) { group in
                for (index, store) in stores.enumerated() {
                    group.addTask { try await store.acquireLease(name, token: "m\(index)", duration: 3600) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            holders.append(answers.filter { $0 == .acquired }.count)
        }
        #expect(holders.allSatisfy { $0 == 1 }, "holders per round: \(holders)")
    }

    /// The race provoked on the real server: one machine's lease request
    /// reaches Apache first, its body held back (a machine stalled between
    /// a request's head and its body: loaded, or far away) until six others
    /// have answered. A conditional PUT's `If-None-Match: *` is checked on
    /// the head, so the held PUT was written over the lease another machine
    /// took and read back twice, and both held it (the conditional-PUT lease of
    /// earlier versions: two holders in each of 3 rounds). A MKCOL has no body: it is made or refused on
    /// arrival, and only its winner writes the holder.
    @Test func aMachineStalledMidRequestGetsNoLeaseAnotherHolds() async throws {
        let apache = try ApacheProcess()
        let proxy = try BodyHoldingProxy(to: apache.port)
        defer { proxy.stop() }
        let slow = try storage(proxy.url)
        let others = try (0..<6).map { _ in try storage(apache.url) }
        // Each probes first, so that the body held is a lease request's.
        _ = try await slow.acquireLease("warm-up", token: "slow", duration: 60)
        for (index, other) in others.enumerated() {
            _ = try await other.acquireLease("warm-up\(index)", token: "other", duration: 60)
        }
        var holders: [Int] = []
        for round in 0..<3 {
            let name = CacheKey("http://origin.example/stalled\(round).png").hash
            proxy.arm()
            let slowAnswer = Mutex<LeaseAnswer?>(nil)
            let stalled = Task {
                let answer = try await slow.acquireLease(name, token: "slow", duration: 3600)
                slowAnswer.withLock { $0 = answer }
            }
            // Its request's head is at the server, its body held (or it answered without sending one).
            #expect(await waitUntil { proxy.isHolding || slowAnswer.withLock { $0 != nil } })
            let answers = try await withThrowingTaskGroup(of: LeaseAnswer.self) { group in
                for (index, other) in others.enumerated() {
                    group.addTask { try await other.acquireLease(name, token: "o\(index)", duration: 3600) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            proxy.release()
            try await stalled.value
            let all = answers + [slowAnswer.withLock { $0 }].compactMap { $0 }
            holders.append(all.filter { $0 == .acquired }.count)
        }
        #expect(holders == [1, 1, 1], "holders per round")
    }

    /// A dead holder whose wall clock ran ahead wrote an expiry minutes
    /// away; a waiter took it for a whole lease at every poll. Judged on the
    /// waiter's own clock too (`LeaseSightings`), a lease not renewed for its
    /// duration has run out; a renewal starts the count again.
    @Test func aDeadHolderWhoseClockRanAheadIsTakenOverAfterItsDuration() async throws {
        let apache = try ApacheProcess()
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

    /// Writes `body` as the holder of the lease for `key` in Apache's tree.
    func writeHolder(_ apache: ApacheProcess, _ body: [UInt8]) throws -> String {
        let leaseFile = apache.objectPath("\(key.hash).lease.d/holder")
        try FileManager.default.createDirectory(
            atPath: (leaseFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(body).write(to: URL(fileURLWithPath: leaseFile))
        return leaseFile
    }

    /// A lease whose holder stopped renewing it is taken over once it runs
    /// out, and by one of the machines that saw it run out, not several.
    @Test func aLeaseThatRanOutGoesToOneWaiter() async throws {
        let apache = try ApacheProcess()
        let leaseFile = try writeHolder(
            apache, HTTPLeaseObject(token: "dead", duration: 9, now: WallClock.now() - 10).encoded)
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
        for body in [
            "imgcache-lease 1\ntoken x\nexpires 1e300\nduration 1e300\n",
            "imgcache-lease 1\ntoken x\nexpires nan\nduration 5000\n",
        ] {
            let leaseFile = try writeHolder(apache, Array(body.utf8))
            #expect(HTTPLeaseObject(parsing: Array(body.utf8)) == nil, "\(body)")
            #expect(try await storage(apache.url).acquireLease(key.hash, token: "me", duration: 60) == .acquired)
            try FileManager.default.removeItem(atPath: (leaseFile as NSString).deletingLastPathComponent)
        }
    }

    /// The step that makes the takeover single: a waiter that saw the
    /// run-out lease before another took it over (and wrote itself in) does
    /// not take it too; and a lease made by a machine that died before it
    /// wrote itself in is taken over after a duration, as is one whose
    /// taker died before it wrote itself in, a duration after that.
    @Test func aWaiterLateToTheRunOutLeaseLeavesTheNewOneAlone() async throws {
        let apache = try ApacheProcess()
        let dead = HTTPLeaseObject(token: "dead", duration: 9, now: WallClock.now() - 10).encoded
        let leaseFile = try writeHolder(apache, dead)
        let clock = TestClock(advancingWhenSlept: true)
        let late = HTTPRemoteStorage(
            try RemoteStorageURL(parsing: apache.url + "|timeout=5000|connect-timeout=2000"), network: network,
            clock: clock)
        #expect(try await storage(apache.url).acquireLease(key.hash, token: "first", duration: 60) == .acquired)
        // As the late waiter read it: before the first wrote itself in.
        try Data(dead).write(to: URL(fileURLWithPath: leaseFile))
        #expect(try await late.acquireLease(key.hash, token: "late", duration: 60) == .held(remaining: nil))
        #expect(HTTPLeaseObject(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: leaseFile))))?.token == "dead")
        // The first never wrote itself in (it died): the next round, a duration later.
        clock.advance(by: 59)
        #expect(try await late.acquireLease(key.hash, token: "late", duration: 60) == .held(remaining: nil))
        clock.advance(by: 1)
        #expect(try await late.acquireLease(key.hash, token: "late", duration: 60) == .acquired)
        #expect(HTTPLeaseObject(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: leaseFile))))?.token == "late")
        // A lease made, its holder never written in: another's for a duration.
        try FileManager.default.removeItem(atPath: leaseFile)
        guard case .held(let left?) = try await late.acquireLease(key.hash, token: "other", duration: 60) else {
            Issue.record("a lease without a holder was taken at once")
            return
        }
        #expect(abs(left - 60) < 0.001)
        clock.advance(by: 60)
        #expect(try await late.acquireLease(key.hash, token: "other", duration: 60) == .acquired)
    }

    /// Apache answers a GET racing the DELETE of its file 403 (the file gone
    /// between its `stat` and its `open`); a holder read so is gone, not a
    /// store failure.
    @Test func aLeaseReadAsItIsFreedIsGone() async throws {
        let server = try TestHTTPServer()
        server.routeOthers { request in
            request.method == "GET" && request.path.hasSuffix(".lease.d/holder") ? .status(403) : .status(404)
        }
        let scratch = try TemporaryDirectory()
        let loader = try Downloader(configuration: .init(temporaryDirectory: scratch.path))
        defer { loader.close() }
        let store = HTTPRemoteStorage(try RemoteStorageURL(parsing: server.url("")), network: loader)
        #expect(try await store.readLease("k") == nil)
    }

    /// nginx without MKCOL in `dav_methods` answers it 405: its store holds
    /// no leases (said once with -v), and a Redis store named after it holds
    /// them instead.
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
                $0.contains { $0.hasSuffix("holds no download leases: it does not make collections (MKCOL)") }
            },
            "\(lines.withLock { $0 })")
        #expect(
            !FileManager.default.fileExists(
                atPath: "\(store.path)/imgcache/\(RemoteObject.layoutVersion)/\(key.hash).lease.d"))
        let redis = try RedisProcess()
        guard case .leased(let lease) = try await claim(try machine("\(nginx.url) \(redis.url)")) else {
            Issue.record("no lease in the Redis store")
            return
        }
        #expect(lease.storage is RedisRemoteStorage)
    }

    /// nginx with MKCOL in `dav_methods` holds leases as Apache does: made
    /// once, refused to another, and freed (the collection deleted) by its holder.
    @Test(.enabled(if: LoopbackServices.haveNginx, "nginx is not installed (make deps installs nginx-light)"))
    func nginxWithMKCOLHoldsLeases() async throws {
        let nginx = try WebDAVRemote(methods: "PUT DELETE MKCOL")
        let (mine, theirs) = (try storage(nginx.url), try storage(nginx.url))
        #expect(try await mine.acquireLease(key.hash, token: "mine", duration: 600) == .acquired)
        guard case .held(let remaining?) = try await theirs.acquireLease(key.hash, token: "theirs", duration: 600)
        else {
            Issue.record("a held lease was granted again, or its time is unknown")
            return
        }
        #expect(remaining > 0 && remaining <= 600)
        let lease = "\(nginx.store.path)/imgcache/\(RemoteObject.layoutVersion)/\(key.hash).lease.d"
        #expect(FileManager.default.fileExists(atPath: lease + "/holder"))
        try await mine.releaseLease(key.hash, token: "mine")
        #expect(!FileManager.default.fileExists(atPath: lease))
        #expect(try await theirs.acquireLease(key.hash, token: "theirs", duration: 600) == .acquired)
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
        #expect(!FileManager.default.fileExists(atPath: apache.objectPath("\(key.hash).lease.d")))
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
