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
struct HTTPLeaseTests: HTTPLeaseSuite {
    let fixture: HTTPLeaseFixture

    init() throws {
        fixture = try HTTPLeaseFixture()
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
