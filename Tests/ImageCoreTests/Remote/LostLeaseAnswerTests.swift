import Foundation
import TestSupport
import Testing

@testable import ImageCore

#if !THREAD_SANITIZER
    // Under ThreadSanitizer, ImageCore's `Mutex` (System/SanitizerLocks.swift)
    // is the one TSan can see; importing this one too makes the name ambiguous.
    import Synchronization
#endif

/// A lease request that timed out may have been written, its answer lost:
/// the machine asks once more with the same token, finds the lease its own,
/// and neither waits on it nor downloads beside the machines waiting on it.
/// A store that failed so stays in use; one that refused is off at once.
struct LostLeaseAnswerTests {
    let url = "http://origin.example/a.png"

    func claim(_ remote: RemoteCache) async throws -> RemoteCache.DownloadClaim {
        try await remote.claimDownload(
            CacheKey(url), url: url, maxBytes: 1 << 20, inspect: { _ in LeaseTests.info },
            pause: { try await remote.clock.sleep($0) })
    }

    func machine(_ store: LossyLeasingStore) -> RemoteCache {
        RemoteCache(storages: [store], statistics: Statistics(), events: .silent, clock: TestClock())
    }

    @Test func aLeaseWrittenWhoseAnswerWasLostIsTakenByItsOwnMachine() async throws {
        let store = LossyLeasingStore(failures: [.timedOutAfterWriting])
        let remote = machine(store)
        guard case .leased(let lease) = try await claim(remote) else {
            Issue.record("the machine did not take the lease it had written")
            return
        }
        #expect(store.holder == lease.token)
        #expect(store.tries == 2)
        #expect(!remote.hasFailed(0), "a timeout turned the store off")
        // Another machine finds it taken, and waits on this one's download.
        #expect(try await store.acquireLease(CacheKey(url).hash, token: "other", duration: 60) != .acquired)
        remote.end(lease)
        await remote.finish()
    }

    @Test func aLeaseRequestThatTimesOutTwiceDownloadsWithoutOneAndKeepsTheStore() async throws {
        let store = LossyLeasingStore(failures: [.timedOut, .timedOut])
        let remote = machine(store)
        guard case .unclaimed = try await claim(remote) else {
            Issue.record("expected no lease")
            return
        }
        #expect(store.tries == 2)
        #expect(!remote.hasFailed(0))
    }

    @Test func aRefusedLeaseRequestIsNotRepeatedAndTurnsTheStoreOff() async throws {
        let store = LossyLeasingStore(failures: [.forbidden])
        let remote = machine(store)
        guard case .unclaimed = try await claim(remote) else {
            Issue.record("expected no lease")
            return
        }
        #expect(store.tries == 1)
        #expect(remote.hasFailed(0))
    }
}

/// A leasing store whose first lease requests fail as `failures` say (a
/// timeout before or after the lease was written, a 403); after those it
/// grants the lease to the first token, and finds it that token's after.
final class LossyLeasingStore: RemoteLeasing {
    enum Failure { case timedOut, timedOutAfterWriting, forbidden }
    let configured = try! RemoteStorageURL(parsing: "redis://fake.invalid")
    private let state: Mutex<(failures: [Failure], holder: String?, tries: Int)>

    init(failures: [Failure]) { state = Mutex((failures, nil, 0)) }

    var holder: String? { state.withLock { $0.holder } }
    var tries: Int { state.withLock { $0.tries } }

    func get(_ name: String, maxBytes: Int) async throws -> [UInt8]? { nil }
    func put(_ name: String, _ object: [UInt8]) async throws {}
    func delete(_ name: String) async throws -> Bool { false }
    func acquireLease(_ name: String, token: String, duration: Double) async throws -> LeaseAnswer {
        let (answer, failure): (LeaseAnswer, Failure?) = state.withLock { state in
            state.tries += 1
            let failure = state.failures.isEmpty ? nil : state.failures.removeFirst()
            if failure == nil || failure == .timedOutAfterWriting { state.holder = state.holder ?? token }
            return (state.holder == token ? .acquired : .held(remaining: 60), failure)
        }
        switch failure {
        case .timedOut?, .timedOutAfterWriting?:
            var error = ImageCoreError(.network, "SET redis://fake.invalid: timed out")
            error.transportFault = .timedOut
            throw error
        case .forbidden?:
            throw ImageCoreError(.network, "PUT http://fake.invalid: HTTP 403 Forbidden", httpStatus: 403)
        case nil:
            return answer
        }
    }
    func renewLease(_ name: String, token: String, duration: Double) async throws -> Bool { holder == token }
    func releaseLease(_ name: String, token: String) async throws {
        state.withLock { if $0.holder == token { $0.holder = nil } }
    }
}
