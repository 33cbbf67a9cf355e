import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// HTTP leases whose holder is gone, against Apache mod_dav on loopback:
/// taken over once they run out, by one waiter, judged on the waiter's own
/// clock; a damaged lease, and one read as it is freed.
@Suite(.serialized, .enabled(if: LoopbackServices.haveApache, "apache2 is not installed (make deps installs it)"))
struct HTTPLeaseTakeoverTests: HTTPLeaseSuite {
    let fixture: HTTPLeaseFixture

    init() throws {
        fixture = try HTTPLeaseFixture()
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
}
