import Testing

@testable import ImageCore

/// `Lookup` alone over a real cache directory: what each scope answers and counts.
@Suite struct LookupTests {
    let url = "http://127.0.0.1/a.png"

    @Test func aFreshEntryIsAHitForEveryScopeCountedOnce() throws {
        let fixture = try PipelineFixture()
        try fixture.storeEntry(url)
        let lookup = fixture.lookup()
        guard case .hit(let response) = try lookup.look(ImageRequest(url: url), key: CacheKey(url), .decides) else {
            Issue.record("expected a hit")
            return
        }
        #expect(response.source == .disk)
        #expect(response.bytes == fixture.png)
        guard case .hit(let warm) = try lookup.look(ImageRequest(url: url), key: CacheKey(url), .hitsOnly) else {
            Issue.record("expected a hit")
            return
        }
        #expect(warm.bytes == fixture.png)
        // A request that needs no bytes is answered from the record alone.
        var prefetch = ImageRequest(url: url)
        prefetch.needsBytes = false
        guard case .hit(let recordOnly) = try lookup.look(prefetch, key: CacheKey(url), .hitsOnly) else {
            Issue.record("expected a hit")
            return
        }
        #expect(recordOnly.bytes.isEmpty)
        #expect(recordOnly.path == response.path)
        #expect(fixture.counts == [.diskHits: 3])
    }

    @Test func memoryAnswersBeforeTheDiskOnceRemembered() throws {
        let fixture = try PipelineFixture()
        let stored = try fixture.storeEntry(url)
        let lookup = fixture.lookup()
        let response = ImageResponse(disk: stored, ImageRequest(url: url), CacheKey(url))
        lookup.remember(RenderedResponse(response: response), ImageRequest(url: url))
        try fixture.disk.remove(CacheKey(url))
        guard case .hit(let found) = try lookup.look(ImageRequest(url: url), key: CacheKey(url), .hitsOnly) else {
            Issue.record("expected a memory hit")
            return
        }
        #expect(found.source == .memory)
        // --refresh skips memory: the disk no longer has it.
        var refresh = ImageRequest(url: url)
        refresh.refresh = true
        guard case .miss = try lookup.look(refresh, key: CacheKey(url), .decides) else {
            Issue.record("expected a miss")
            return
        }
        #expect(fixture.counts == [.memoryHits: 1, .misses: 1])
    }

    @Test func aMissIsCountedOnceWhoeverFindsItFirst() throws {
        let fixture = try PipelineFixture()
        let lookup = fixture.lookup()
        var request = ImageRequest(url: url)
        request.needsBytes = false
        guard case .miss = try lookup.look(request, key: CacheKey(url), .hitsOnly) else {
            Issue.record("expected a miss")
            return
        }
        #expect(fixture.counts.isEmpty)
        // The caller marks it; `load`'s look counts it without reading the disk again.
        request.diskMissed = true
        try fixture.storeEntry(url)
        guard case .miss = try lookup.look(request, key: CacheKey(url), .decides) else {
            Issue.record("expected the marked miss")
            return
        }
        #expect(fixture.counts == [.misses: 1])
        // Needing bytes, a miss is not decided by a hits-only look, and not counted.
        try fixture.disk.remove(CacheKey(url))
        guard case .undecided = try lookup.look(ImageRequest(url: url), key: CacheKey(url), .hitsOnly) else {
            Issue.record("expected undecided")
            return
        }
        #expect(fixture.counts == [.misses: 1])
    }

    @Test func staleEntriesAreLeftToTheCallerThatDecides() throws {
        let fixture = try PipelineFixture()
        let lookup = fixture.lookup()
        let old = WallClock.now() - 100
        try fixture.storeEntry(url, headers: ["cache-control": "max-age=10", "etag": "\"v1\""], at: old)
        guard case .stale(let stale) = try lookup.look(ImageRequest(url: url), key: CacheKey(url), .decides) else {
            Issue.record("expected stale")
            return
        }
        #expect(stale.entry.etag == "\"v1\"")
        guard case .undecided = try lookup.look(ImageRequest(url: url), key: CacheKey(url), .hitsOnly) else {
            Issue.record("expected undecided")
            return
        }
        let other = "http://127.0.0.1/b.png"
        try fixture.storeEntry(other, headers: ["cache-control": "max-age=10, stale-while-revalidate=600"], at: old)
        guard
            case .hitThenRevalidate(let served, _) = try lookup.look(
                ImageRequest(url: other), key: CacheKey(other), .decides)
        else {
            Issue.record("expected a hit to revalidate")
            return
        }
        #expect(served.source == .disk)
        #expect(fixture.counts == [.diskHits: 1])
    }

    @Test func offlineRefusesWhatTheServerRequiresToRevalidate() throws {
        let fixture = try PipelineFixture()
        try fixture.storeEntry(url, headers: ["cache-control": "max-age=1, must-revalidate"], at: WallClock.now() - 100)
        var offline = ImageRequest(url: url)
        offline.network = .offline
        #expect(throws: ImageCoreError.self) {
            try fixture.lookup().look(offline, key: CacheKey(url), .decides)
        }
    }

    /// Over this run's limits, a hit is left to `load` (which counts it and
    /// says why) rather than counted by a look that cannot fail it.
    @Test func aHitOverTheRunsLimitsIsLeftToLoad() throws {
        let fixture = try PipelineFixture()
        let stored = try fixture.storeEntry(url)
        var small = ImageRequest(url: url)
        small.download.maxBytes = 10
        let lookup = fixture.lookup()
        guard case .undecided = try lookup.look(small, key: CacheKey(url), .hitsOnly) else {
            Issue.record("expected undecided")
            return
        }
        lookup.remember(RenderedResponse(response: ImageResponse(disk: stored, small, CacheKey(url))), small)
        guard case .undecided = try lookup.look(small, key: CacheKey(url), .hitsOnly) else {
            Issue.record("expected undecided from memory too")
            return
        }
        #expect(fixture.counts.isEmpty)
        guard case .hit = try lookup.look(small, key: CacheKey(url), .decides) else {
            Issue.record("expected a hit for load to judge")
            return
        }
        #expect(fixture.counts == [.memoryHits: 1])
    }

    @Test func pixelsAreNeverAnsweredByAHitsOnlyLook() throws {
        let fixture = try PipelineFixture()
        try fixture.storeEntry(url)
        var pixels = ImageRequest(url: url)
        pixels.decodesPixels = true
        guard case .undecided = try fixture.lookup().look(pixels, key: CacheKey(url), .hitsOnly) else {
            Issue.record("expected undecided")
            return
        }
        #expect(fixture.counts.isEmpty)
    }
}
