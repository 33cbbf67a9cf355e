import Foundation
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
}
