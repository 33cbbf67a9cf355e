import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImageCore

/// `NetworkFetch` alone over a real cache directory, with a scripted loader:
/// the states a fetch goes through and what it leaves on disk.
@Suite struct NetworkFetchTests {
    let url = "http://127.0.0.1/a.png"

    @Test func aMissIsDownloadedVerifiedAndStoredWithNothingLeftBehind() async throws {
        let fixture = try PipelineFixture()
        let loader = ScriptedLoader { _ in try fixture.downloaded(fixture.png, headers: ["cache-control": "max-age=60"])
        }
        let response = try await fixture.network(loader).load(ImageRequest(url: url), key: CacheKey(url), stale: nil)
        #expect(response.source == .downloaded)
        #expect(response.path != nil)
        #expect(fixture.temporaryFiles.isEmpty)
        #expect(try fixture.disk.lookup(CacheKey(url))?.bytes == fixture.png)
        // The download was resumable into the entry's partial body (a writable cache).
        #expect(loader.downloads.first?.resumableBodyPath == fixture.directory.partialPath(CacheKey(url).hash))
        #expect(fixture.counts[.downloads] == 1)
    }

    @Test func anEntryStoredMeanwhileIsFoundUnderTheLock() async throws {
        let fixture = try PipelineFixture()
        let loader = ScriptedLoader { _ in throw ImageCoreError(.network, "not asked") }
        // Stored by "another process" after this one's lookup missed.
        try fixture.storeEntry(url)
        let response = try await fixture.network(loader).load(ImageRequest(url: url), key: CacheKey(url), stale: nil)
        #expect(response.source == .disk)
        #expect(loader.downloads.isEmpty)
    }

    @Test func aNotModifiedRenewsTheStaleEntryAndDropsTheBody() async throws {
        let fixture = try PipelineFixture()
        let stale = try fixture.storeEntry(
            url, headers: ["cache-control": "max-age=1", "etag": "\"v1\""], at: WallClock.now() - 100)
        let loader = ScriptedLoader { _ in
            try fixture.downloaded([], status: 304, headers: ["cache-control": "max-age=600"])
        }
        let response = try await fixture.network(loader).load(ImageRequest(url: url), key: CacheKey(url), stale: stale)
        #expect(response.source == .revalidated)
        #expect(response.bytes == fixture.png)
        #expect(fixture.temporaryFiles.isEmpty)
        let conditional = try #require(loader.downloads.first)
        #expect(conditional.headers.contains(HTTPHeader(name: "If-None-Match", value: "\"v1\"")))
        #expect(fixture.counts[.revalidations] == 1)
    }

    @Test func aBodyThatFailsVerificationIsRemovedAndRemembered() async throws {
        let fixture = try PipelineFixture()
        let loader = ScriptedLoader { _ in try fixture.downloaded(Array("<html>".utf8), headers: [:]) }
        let network = fixture.network(loader)
        await #expect(throws: ImageCoreError.self) {
            try await network.load(ImageRequest(url: url), key: CacheKey(url), stale: nil)
        }
        #expect(fixture.temporaryFiles.isEmpty)
        do {
            _ = try await network.load(ImageRequest(url: url), key: CacheKey(url), stale: nil)
            Issue.record("expected failed-before")
        } catch let error as ImageCoreError {
            #expect(error.kind == .failedBefore)
        }
        #expect(loader.downloads.count == 1)
    }

    @Test func cancellingReachesTheLoaderAndRefusesLaterLoads() async throws {
        let fixture = try PipelineFixture()
        let loader = ScriptedLoader { _ in try fixture.downloaded(fixture.png, headers: [:]) }
        let network = fixture.network(loader)
        network.cancelAll()
        #expect(loader.cancels == 1)
        do {
            _ = try await network.load(ImageRequest(url: url), key: CacheKey(url), stale: nil)
            Issue.record("expected interrupted")
        } catch let error as ImageCoreError {
            #expect(error.kind == .interrupted)
        }
        #expect(loader.downloads.isEmpty)
    }
    /// A loader that fails the first `failures` downloads with a 503 (with
    /// `retryAfter` if given), then downloads.
    func failingFirst(
        _ failures: Int, retryAfter: Double?, _ fixture: PipelineFixture
    ) -> ScriptedLoader {
        let calls = Atomic<Int>(0)
        return ScriptedLoader { _ in
            guard calls.add(1, ordering: .relaxed).newValue > failures else {
                var error = ImageCoreError(.http, "HTTP 503", httpStatus: 503, isTransient: true)
                error.retryAfter = retryAfter
                throw error
            }
            return try fixture.downloaded(fixture.png, headers: [:])
        }
    }

    /// The retry waits what the server's Retry-After says (to the pause's
    /// 51 ms grain), on the step's clock.
    @Test func aRetryWaitsTheRetryAfterPause() async throws {
        let fixture = try PipelineFixture()
        let clock = TestClock(advancingWhenSlept: true)
        let loader = failingFirst(1, retryAfter: 2, fixture)
        let started = clock.monotonicNow()
        let response = try await fixture.network(loader, clock: clock).load(
            ImageRequest(url: url), key: CacheKey(url), stale: nil)
        let waited = clock.monotonicNow() - started
        #expect(response.source == .downloaded && loader.downloads.count == 2)
        #expect(waited >= 2 && waited < 2.06, "\(waited) s")
    }

    /// Without Retry-After: 0.5 s, then 1 s, then 2 s per attempt, each half
    /// fixed and half random ("equal jitter").
    @Test func retriesBackOffExponentiallyWithJitter() async throws {
        let fixture = try PipelineFixture()
        let clock = TestClock(advancingWhenSlept: true)
        let loader = failingFirst(3, retryAfter: nil, fixture)
        var request = ImageRequest(url: url)
        request.retries = 3
        var waits: [Double] = []
        let marks = Mutex<[Double]>([])
        let events = EventLog { line in
            if line.contains("; retry ") { marks.withLock { $0.append(clock.monotonicNow()) } }
        }
        _ = try await fixture.network(loader, events: events, clock: clock).load(
            request, key: CacheKey(url), stale: nil)
        #expect(loader.downloads.count == 4)
        let announced = marks.withLock { $0 }
        for (index, start) in announced.enumerated() {
            let end = index + 1 < announced.count ? announced[index + 1] : clock.monotonicNow()
            waits.append(end - start)
        }
        #expect(waits.count == 3, "\(waits)")
        for (attempt, waited) in waits.enumerated() {
            let backoff = 0.5 * Double(1 << attempt)
            #expect(waited >= backoff / 2 && waited < backoff + 0.06, "attempt \(attempt): \(waited) s")
        }
    }

    /// A Retry-After past `RetryDelay.longestWait` is not waited for: the
    /// failure is reported at once.
    @Test func aRetryAfterTooLongIsNotWaitedFor() async throws {
        let fixture = try PipelineFixture()
        let clock = TestClock(advancingWhenSlept: true)
        let loader = failingFirst(1, retryAfter: RetryDelay.longestWait + 1, fixture)
        await #expect(throws: ImageCoreError.self) {
            try await fixture.network(loader, clock: clock).load(ImageRequest(url: url), key: CacheKey(url), stale: nil)
        }
        #expect(loader.downloads.count == 1 && clock.sleeps.isEmpty)
    }

    /// `cancelAll()` ends a retry's pause within its 50 ms grain, not at the
    /// end of the Retry-After.
    @Test func cancellingEndsARetryPause() async throws {
        let fixture = try PipelineFixture()
        let clock = TestClock()
        let network = fixture.network(failingFirst(1, retryAfter: 20, fixture), clock: clock)
        let load = Task { try await network.load(ImageRequest(url: url), key: CacheKey(url), stale: nil) }
        #expect(await clock.waitUntil { clock.sleeperCount == 1 })
        network.cancelAll()
        clock.advancesWhenSlept = true
        clock.advance(by: 0.051)
        do {
            _ = try await load.value
            Issue.record("expected interrupted")
        } catch let error as ImageCoreError {
            #expect(error.kind == .interrupted)
        }
        #expect(clock.sleeps.count == 1, "one nap, not the Retry-After: \(clock.sleeps)")
    }
}
