import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImageCore

/// Download leases in the remote tier, against a real Redis and counting
/// fakes: one machine downloads, the others wait for its entry.
@Suite(.serialized, .enabled(if: LoopbackServices.haveRedis, "redis-server is not installed (make deps installs it)"))
struct LeaseTests {
    let url = "http://origin.example/a.png"
    var key: CacheKey { CacheKey(url) }
    var leaseKey: [UInt8] { Array("imgcache:\(RemoteObject.layoutVersion):lease:\(key.hash)".utf8) }

    /// A machine's remote tier. Timeouts are generous and leases long unless
    /// a test is about their expiry: the suite shares two cores with tests
    /// that block threads, and a starved test must not see a lease expire.
    func machine(_ spec: String, clock: any TimeSource = SystemClock()) throws -> RemoteCache {
        let patient = spec.split(separator: " ").map { $0 + "|timeout=5000|connect-timeout=2000" }
        return RemoteCache(
            try RemoteStorageURL.parseList(patient.joined(separator: " ")), statistics: Statistics(), events: .silent,
            network: CountingLoader(directory: "/nonexistent", answers: [:]), clock: clock)
    }

    /// The claim, pausing between polls on the remote tier's own clock.
    func claim(_ remote: RemoteCache) async throws -> RemoteCache.DownloadClaim {
        try await remote.claimDownload(
            key, url: url, maxBytes: 1 << 20, inspect: { _ in Self.info }, pause: { try await remote.clock.sleep($0) })
    }

    static let info = ImageInfo(format: .png, width: 4, height: 3, frameCount: 1, loopCount: nil, orientation: 1)

    func entry() -> CacheEntry { Self.entry(url) }

    /// A fresh entry for `url` holding `Fixtures.tinyPNG`.
    static func entry(_ url: String) -> CacheEntry {
        CacheEntry(
            key: url, url: url, info: info, byteCount: Fixtures.tinyPNG.count,
            checksum: Digest.xxh3Hex(Fixtures.tinyPNG), storedAt: WallClock.now(),
            response: StoredResponse(freshUntil: WallClock.now() + 3600), dataFileName: "f")
    }

    /// The waiter is seen waiting (asleep between polls) before the upload,
    /// and its next poll after it finds the entry.
    @Test func theSecondMachineWaitsForTheFirstOnesUploadAndTheLeaseGoes() async throws {
        let redis = try RedisProcess()
        let clock = TestClock()
        let (a, b) = (try machine(redis.url + "|lease=600000"), try machine(redis.url + "|lease=600000", clock: clock))
        guard case .leased(let lease) = try await claim(a) else {
            Issue.record("the first machine did not get the lease")
            return
        }
        let connection = try redis.connect()
        guard case .string(let token) = try connection.command([Array("GET".utf8), leaseKey]) else {
            Issue.record("no lease in Redis")
            return
        }
        #expect(String(decoding: token, as: UTF8.self) == lease.token)
        let waiter = Task { try await claim(b) }
        #expect(await clock.waitUntil { clock.sleeperCount == 1 }, "the second machine is not waiting")
        a.upload(entry(), bytes: Fixtures.tinyPNG, key: key, url: url)
        a.end(lease)
        await a.finish()
        #expect(try connection.command([Array("EXISTS".utf8), leaseKey]) == .integer(0), "released after the upload")
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

    @Test func aDownloadThatStoresNothingReleasesTheLeaseAtOnce() async throws {
        let redis = try RedisProcess()
        let a = try machine(redis.url)
        guard case .leased(let lease) = try await claim(a) else {
            Issue.record("no lease")
            return
        }
        a.end(lease)
        await a.finish()
        #expect(try redis.connect().command([Array("EXISTS".utf8), leaseKey]) == .integer(0))
        guard case .leased = try await claim(try machine(redis.url)) else {
            Issue.record("the next machine did not get the freed lease")
            return
        }
    }

    /// A holder that died leaves its lease to expire: the waiter takes it
    /// then, not before, and well before lease plus margin.
    @Test func aLeaseThatExpiresWhileWaitingIsTakenOver() async throws {
        let redis = try RedisProcess()
        _ = try redis.connect().command(
            ["SET", String(decoding: leaseKey, as: UTF8.self), "dead-holder", "PX", "1500"].map { Array($0.utf8) })
        let started = MonotonicClock.now()
        let claimed = try await claim(try machine(redis.url + "|lease=1500"))
        let waited = MonotonicClock.now() - started
        guard case .leased = claimed else {
            Issue.record("the waiter did not take the expired lease: \(claimed)")
            return
        }
        // Taken at expiry, not before. The upper bound leaves room for a
        // starved test, but not for a sanitizer's pace (a CI-like TSan run
        // waited 39 s there): the lease taken is the state checked there.
        #expect(waited > 1.0, "\(waited) s")
        if upperTimeBoundsHold {
            #expect(waited < 1.5 + RemoteCache.leaseMargin + 30, "\(waited) s")
        }
    }

    /// Renewal and release compare the token: a holder whose lease expired
    /// and went to another machine neither extends nor frees the other's.
    @Test func renewalAndReleaseTouchOnlyTheHoldersOwnLease() async throws {
        let redis = try RedisProcess()
        let storage = RedisRemoteStorage(try RemoteStorageURL(parsing: redis.url + "|timeout=5000"))
        let connection = try redis.connect()
        let leaseName = String(decoding: leaseKey, as: UTF8.self)
        #expect(try await storage.acquireLease(key.hash, token: "mine", duration: 600) == .acquired)
        guard case .held(let remaining?) = try await storage.acquireLease(key.hash, token: "theirs", duration: 600)
        else {
            Issue.record("a held lease was granted again, or its time is unknown")
            return
        }
        #expect(remaining > 500 && remaining <= 600)
        #expect(try await storage.renewLease(key.hash, token: "mine", duration: 1200))
        guard case .integer(let left) = try connection.command(["PTTL", leaseName].map { Array($0.utf8) }) else {
            Issue.record("no PTTL")
            return
        }
        #expect(left > 700_000, "renewed to 1200 s: \(left) ms left")
        #expect(try await !storage.renewLease(key.hash, token: "theirs", duration: 1))
        try await storage.releaseLease(key.hash, token: "theirs")
        #expect(try connection.command([Array("EXISTS".utf8), leaseKey]) == .integer(1))
        try await storage.releaseLease(key.hash, token: "mine")
        #expect(try connection.command([Array("EXISTS".utf8), leaseKey]) == .integer(0))
    }

    /// A lease asked for again with the token that holds it (the first
    /// answer lost on the way) is the asker's; with another token it is held.
    @Test func aLeaseAskedForAgainByItsHolderIsItsOwn() async throws {
        let redis = try RedisProcess()
        let store = RedisRemoteStorage(try RemoteStorageURL(parsing: redis.url + "|timeout=5000|connect-timeout=2000"))
        #expect(try await store.acquireLease(key.hash, token: "mine", duration: 600) == .acquired)
        #expect(try await store.acquireLease(key.hash, token: "mine", duration: 600) == .acquired)
        guard case .held(let remaining?) = try await store.acquireLease(key.hash, token: "theirs", duration: 600) else {
            Issue.record("a held lease was granted to another, or its time is unknown")
            return
        }
        #expect(remaining > 0 && remaining <= 600)
    }

    /// The holder renews every third of the lease while its download runs,
    /// and not once it is released.
    @Test func aLeaseIsRenewedEveryThirdOfItsDurationUntilReleased() async throws {
        let clock = TestClock()
        let store = FakeLeasingStore(alwaysTaken: false, leaseDuration: 30, clock: clock)
        let remote = RemoteCache(storages: [store], statistics: Statistics(), events: .silent, clock: clock)
        guard case .leased(let lease) = try await claim(remote) else {
            Issue.record("no lease")
            return
        }
        let renewals = { store.renewals.load(ordering: .relaxed) }
        #expect(await clock.waitUntil { clock.sleeperCount == 1 })
        clock.advance(by: 9.9)
        #expect(clock.sleeperCount == 1 && renewals() == 0, "renewed before a third of the lease")
        for expected in 1...2 {
            clock.advance(by: 0.1)
            #expect(await clock.waitUntil { renewals() == expected && clock.sleeperCount == 1 })
            clock.advance(by: 9.9)
        }
        #expect(clock.sleeps == [10, 10, 10])
        remote.end(lease)
        await remote.finish()
        #expect(store.releases.load(ordering: .relaxed) == 1)
        #expect(await clock.waitUntil { clock.sleeperCount == 0 }, "the renewal still sleeps after the release")
        clock.advance(by: 60)
        #expect(renewals() == 2, "no renewal after the release")
    }

    @Test func readOnlyAndFailedStoresTakeNoLeases() async throws {
        let redis = try RedisProcess()
        guard case .unclaimed = try await claim(try machine(redis.url + "|read-only")) else {
            Issue.record("a read-only store gave a lease")
            return
        }
        #expect(try redis.connect().command([Array("DBSIZE".utf8)]) == .integer(0))
        // The lease goes to the first writable store that holds leases.
        let both = try machine("\(redis.url)|read-only \(redis.url)/1")
        guard case .leased = try await claim(both) else {
            Issue.record("no lease in the writable store")
            return
        }
        // Held refusing: a port only free when chosen could be taken by
        // another test's server meanwhile, and answer.
        let dead = try RefusingPort()
        let stopped = try machine("redis://127.0.0.1:\(dead.port)")
        guard case .unclaimed = try await claim(stopped) else {
            Issue.record("a dead store gave a lease")
            return
        }
        withExtendedLifetime(dead) {}
    }

    /// A holder that keeps renewing its lease is waited for past the lease
    /// time: its download is slow, not dead. The entry is taken at the first
    /// poll after it arrives.
    @Test func aWaiterWaitsAsLongAsTheHolderRenews() async throws {
        let object = RemoteObject.encode(entry(), bytes: Fixtures.tinyPNG)
        let clock = TestClock(advancingWhenSlept: true)
        // Arrives after three lease times plus the margin.
        let store = FakeLeasingStore(
            alwaysTaken: true, leaseDuration: 0.4, holderRenews: true, object: object, arrivingAfter: 2.5,
            clock: clock)
        let remote = RemoteCache(storages: [store], statistics: Statistics(), events: .silent, clock: clock)
        let started = clock.monotonicNow()
        guard case .uploaded(let hit) = try await claim(remote) else {
            Issue.record("the waiter gave up while the holder renewed its lease")
            return
        }
        #expect(hit.bytes == Fixtures.tinyPNG)
        let waited = clock.monotonicNow() - started
        #expect(waited >= 2.5 && waited < 2.5 + RemoteCache.longestPoll, "\(waited) s")
    }

    /// A store that grants leases to someone else but never receives the
    /// entry: the waiter stops at the lease's duration plus the margin, to
    /// the millisecond, polling with a backoff rather than a busy loop.
    @Test func aLeaseWhoseEntryNeverArrivesEndsTheWait() async throws {
        let clock = TestClock(advancingWhenSlept: true)
        let store = FakeLeasingStore(alwaysTaken: true, leaseDuration: 0.4, clock: clock)
        let remote = RemoteCache(storages: [store], statistics: Statistics(), events: .silent, clock: clock)
        let started = clock.monotonicNow()
        guard case .unclaimed = try await claim(remote) else {
            Issue.record("expected to give up and download")
            return
        }
        let waited = clock.monotonicNow() - started
        #expect(abs(waited - (0.4 + RemoteCache.leaseMargin)) < 0.001, "\(waited) s")
        let pauses = clock.sleeps
        #expect(pauses.first == 0.05 && zip(pauses, pauses.dropFirst().dropLast()).allSatisfy { $1 > $0 }, "\(pauses)")
        #expect(store.gets.load(ordering: .relaxed) == pauses.count, "one poll after each pause")
        #expect(pauses.count < 15, "backoff, not a busy loop: \(pauses)")
    }

    /// A holder that died: its lease is taken at the first try after it ran
    /// out, not before, and not a poll later.
    @Test func aDeadHoldersLeaseIsTakenAtTheFirstTryAfterItRunsOut() async throws {
        let clock = TestClock(advancingWhenSlept: true)
        let store = FakeLeasingStore(alwaysTaken: true, leaseDuration: 0.4, holderDied: true, clock: clock)
        let remote = RemoteCache(storages: [store], statistics: Statistics(), events: .silent, clock: clock)
        let runsOut = clock.monotonicNow() + 0.4
        guard case .leased(let lease) = try await claim(remote) else {
            Issue.record("the waiter did not take the run-out lease")
            return
        }
        let tries = store.leaseTries
        #expect(tries.count >= 2 && tries.last! >= runsOut && tries.dropLast().last! < runsOut, "\(tries)")
        remote.end(lease)
        await remote.finish()
    }
}
