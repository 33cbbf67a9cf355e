import Foundation
import Testing

@testable import ImageCore

/// Each step of the network step's run (`FetchRun`), and its release, alone:
/// a run is built at the stage a step starts from, over a real cache directory.
@Suite struct FetchRunTests {
    let url = "http://127.0.0.1/a.png"
    var key: CacheKey { CacheKey(url) }
    let notAsked = ScriptedLoader { _ in throw ImageCoreError(.network, "not asked") }

    /// A run at `.claimed`, holding the key's download lock.
    func claimedRun(_ network: NetworkFetch) throws -> FetchRun {
        var run = FetchRun(ImageRequest(url: url), key: key, stale: nil)
        let locks = try #require(network.downloadLocks())
        #expect(locks.tryLock(key.hash))
        run.held.claim = .held(locks, hash: key.hash)
        run.stage = .claimed
        return run
    }

    /// Whether another process could take the key's download lock now. Record
    /// locks belong to a process, so this one cannot ask itself: a Python
    /// child tries the byte (`DownloadLocks`' offset) without waiting.
    func lockIsFree(_ fixture: PipelineFixture) throws -> Bool {
        let offset = Int64(key.hash.prefix(15), radix: 16) ?? 0
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c",
            "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR); "
                + "fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, int(sys.argv[2]))",
            "\(fixture.directory.root)/downloads.lock", "\(offset)",
        ]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    @Test func theDownloadLockIsTakenThenHeldUntilRelease() async throws {
        let fixture = try PipelineFixture()
        let network = fixture.network(notAsked)
        var run = FetchRun(ImageRequest(url: url), key: key, stale: nil)
        try await network.advance(&run)
        guard case .claimed = run.stage, case .held = run.held.claim else {
            Issue.record("not claimed: \(run.stage)")
            return
        }
        #expect(try !lockIsFree(fixture))
        network.release(run.held)
        #expect(try lockIsFree(fixture))
    }

    @Test func underTheLockAnEntryStoredMeanwhileIsTheAnswer() async throws {
        let fixture = try PipelineFixture()
        let network = fixture.network(notAsked)
        var run = try claimedRun(network)
        try fixture.storeEntry(url)
        try await network.advance(&run)
        guard case .answered(let fetched) = run.stage else {
            Issue.record("not answered: \(run.stage)")
            return
        }
        #expect(fetched.source == .disk && fetched.bytes == fixture.png)
        network.release(run.held)
    }

    @Test func underTheLockNoEntryIsAbsentAndWithoutItUnknown() async throws {
        let fixture = try PipelineFixture()
        let network = fixture.network(notAsked)
        var run = try claimedRun(network)
        try await network.advance(&run)
        guard case .entrySeen(.absent) = run.stage else {
            Issue.record("expected absent: \(run.stage)")
            return
        }
        network.release(run.held)
        // Without the lock the entry may appear at any moment: not known absent.
        var unlocked = FetchRun(ImageRequest(url: url), key: key, stale: nil)
        unlocked.stage = .claimed
        try await network.advance(&unlocked)
        guard case .entrySeen(.unknown) = unlocked.stage else {
            Issue.record("expected unknown: \(unlocked.stage)")
            return
        }
    }

    @Test func withoutRemoteStorageTheRunGoesStraightToTheOrigin() async throws {
        let fixture = try PipelineFixture()
        let network = fixture.network(notAsked)
        var run = FetchRun(ImageRequest(url: url), key: key, stale: nil)
        run.stage = .entrySeen(.absent)
        try await network.advance(&run)
        guard case .remoteAsked(.absent) = run.stage else {
            Issue.record("\(run.stage)")
            return
        }
        try await network.advance(&run)
        guard case .leaseTaken(.absent) = run.stage, run.held.lease == nil else {
            Issue.record("\(run.stage)")
            return
        }
    }

    @Test func theFleetsLeaseIsHeldUntilRelease() async throws {
        let fixture = try PipelineFixture()
        let store = FakeLeasingStore(alwaysTaken: false, leaseDuration: 600, clock: TestClock())
        let remote = RemoteCache(storages: [store], statistics: fixture.statistics, events: .silent)
        let network = fixture.network(notAsked, remote: remote)
        var run = FetchRun(ImageRequest(url: url), key: key, stale: nil)
        run.stage = .remoteAsked(.absent)
        try await network.advance(&run)
        guard case .leaseTaken(.absent) = run.stage, run.held.lease != nil else {
            Issue.record("no lease: \(run.stage)")
            return
        }
        #expect(store.releases.load(ordering: .relaxed) == 0)
        network.release(run.held)
        await remote.finish()
        #expect(store.releases.load(ordering: .relaxed) == 1)
    }

    @Test func theOriginsBodyIsHeldByTheRun() async throws {
        let fixture = try PipelineFixture()
        let loader = ScriptedLoader { _ in try fixture.downloaded(fixture.png, headers: [:]) }
        let network = fixture.network(loader)
        var run = FetchRun(ImageRequest(url: url), key: key, stale: nil)
        run.stage = .leaseTaken(.absent)
        try await network.advance(&run)
        guard case .downloaded(let downloaded, .absent) = run.stage else {
            Issue.record("\(run.stage)")
            return
        }
        #expect(run.held.body?.bodyPath == downloaded.bodyPath && !run.held.bodyIsTheEntry)
        #expect(FileManager.default.fileExists(atPath: downloaded.bodyPath))
        network.release(run.held)
        #expect(!FileManager.default.fileExists(atPath: downloaded.bodyPath), "a body not kept is removed")
    }

    @Test func aVerifiedBodyBecomesTheEntryAndIsNotRemoved() async throws {
        let fixture = try PipelineFixture()
        let network = fixture.network(notAsked)
        var run = FetchRun(ImageRequest(url: url), key: key, stale: nil)
        let downloaded = try fixture.downloaded(fixture.png, headers: ["cache-control": "max-age=60"])
        run.held.body = downloaded
        run.stage = .downloaded(downloaded, .absent)
        try await network.advance(&run)
        guard case .settled(.renamedIntoCache) = run.stage, run.held.bodyIsTheEntry else {
            Issue.record("\(run.stage)")
            return
        }
        try await network.advance(&run)
        guard case .answered(let fetched) = run.stage else {
            Issue.record("\(run.stage)")
            return
        }
        network.release(run.held)
        let stored = try #require(try fixture.disk.lookup(key))
        #expect(stored.bytes == fixture.png && fetched.source == .downloaded)
        #expect(fixture.temporaryFiles.isEmpty)
    }

    @Test func aBodyThatFailsVerificationStaysTheRunsToRemove() async throws {
        let fixture = try PipelineFixture()
        let network = fixture.network(notAsked)
        var run = FetchRun(ImageRequest(url: url), key: key, stale: nil)
        let downloaded = try fixture.downloaded(Array("<html>".utf8), headers: [:])
        run.held.body = downloaded
        run.stage = .downloaded(downloaded, .absent)
        await #expect(throws: ImageCoreError.self) { try await network.advance(&run) }
        guard case .downloaded = run.stage, !run.held.bodyIsTheEntry else {
            Issue.record("\(run.stage)")
            return
        }
        network.release(run.held)
        #expect(fixture.temporaryFiles.isEmpty)
        #expect(try fixture.disk.lookup(key) == nil)
    }
}
