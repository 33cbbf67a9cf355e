import Foundation
import TestSupport

@testable import ImageCore

/// What the HTTP lease suites share: a downloader, a key, and Apache or
/// nginx stores and machines made over it with patient timeouts (a store
/// request that timed out on a loaded machine is not what they test).
protocol HTTPLeaseSuite {
    var fixture: HTTPLeaseFixture { get }
}

/// A suite instance's downloader, and the directory it downloads into
/// (removed when the instance goes).
struct HTTPLeaseFixture {
    let work: TemporaryDirectory
    let network: Downloader

    init() throws {
        work = try TemporaryDirectory()
        network = try Downloader(configuration: Downloader.Configuration(temporaryDirectory: work.path))
    }
}

extension HTTPLeaseSuite {
    var network: Downloader { fixture.network }
    var work: TemporaryDirectory { fixture.work }
    var key: CacheKey { CacheKey("http://origin.example/a.png") }

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

    /// Writes `body` as the holder of the lease for `key` in Apache's tree.
    func writeHolder(_ apache: ApacheProcess, _ body: [UInt8]) throws -> String {
        let leaseFile = apache.objectPath("\(key.hash).lease.d/holder")
        try FileManager.default.createDirectory(
            atPath: (leaseFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(body).write(to: URL(fileURLWithPath: leaseFile))
        return leaseFile
    }
}
