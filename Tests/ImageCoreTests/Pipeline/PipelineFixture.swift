import Foundation
import Synchronization
import TestSupport

@testable import ImageCore

/// The pipeline's steps built by hand over a real temporary cache
/// directory, so each step is tested alone: no `ImageManager` in between.
struct PipelineFixture {
    let temporary: TemporaryDirectory
    let directory: CacheDirectory
    let statistics = Statistics()
    let disk: DiskCache
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 40)
    let info = ImageInfo(format: .png, width: 1, height: 1)

    init() throws {
        temporary = try TemporaryDirectory()
        directory = CacheDirectory(root: temporary.path + "/cache")
        let placement = try directory.prepare()
        disk = DiskCache(directory: directory, placement: placement, statistics: statistics)
    }

    func lookup(memoryLimit: Int = 1 << 20, clock: any TimeSource = SystemClock()) -> Lookup {
        Lookup(
            memory: MemoryCache(costLimit: memoryLimit), disk: disk,
            limits: RunLimits(limits: .default, decoder: CountingDecoder()), statistics: statistics, events: .silent,
            clock: clock)
    }

    func store(maxSize: Int? = nil) -> Store {
        Store(disk: disk, remote: nil, maxSize: maxSize, statistics: statistics, events: .silent)
    }

    func network(
        _ loader: any DataLoading, store: Store? = nil, remote: RemoteCache? = nil, events: EventLog = .silent,
        clock: any TimeSource = SystemClock()
    ) -> NetworkFetch {
        NetworkFetch(
            disk: disk, store: store ?? self.store(), verify: Verification(decoder: CountingDecoder()),
            limits: RunLimits(limits: .default, decoder: CountingDecoder()), remote: remote,
            loader: loader, failedURLs: FailedURLRegistry(directory: directory, timeToLive: 3600),
            statistics: statistics, events: events, writableCache: directory, cookieJar: nil, scratchDirectory: nil,
            clock: clock)
    }

    /// Stores `bytes` for `url` as if downloaded at `time` with `headers`.
    @discardableResult
    func storeEntry(
        _ url: String, headers: [String: String] = ["cache-control": "max-age=3600"], bytes: [UInt8]? = nil,
        at time: Double = WallClock.now()
    ) throws -> CachedData {
        let response = StoredResponse(
            headers: ResponseHeaders(headers), request: DownloadRequest(url: url), requestTime: time,
            responseTime: time)
        return try disk.store(
            bytes ?? png, temporaryPath: nil, key: CacheKey(url), url: url, info: info, response: response)
    }

    /// A downloaded body in the cache's tmp/, as a loader leaves it.
    func downloaded(_ bytes: [UInt8], status: Int = 200, headers: [String: String]) throws -> DownloadResponse {
        let path = "\(directory.temporary)/\(UUID().uuidString).part"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let now = WallClock.now()
        return DownloadResponse(
            status: status, effectiveURL: "", headers: ResponseHeaders(headers), bodyPath: path, bodySize: bytes.count,
            requestTime: now, responseTime: now)
    }

    /// Files left in the cache's tmp/.
    var temporaryFiles: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.temporary)) ?? []
    }

    var counts: [Statistics.Counter: Int] { statistics.snapshot }

    /// Waits until a file written now gets a later modification time than
    /// one written before the call. An entry's last use is its file's mtime,
    /// which the kernel takes from its coarse clock (one tick is a few ms):
    /// entries stored within one tick are equally recent, and a test of the
    /// order of eviction must store each in a tick of its own.
    func waitForTheFileClockToTick() throws {
        let probe = "\(temporary.path)/clock-probe"
        func modified() throws -> Date {
            try Data().write(to: URL(fileURLWithPath: probe))
            return try FileManager.default.attributesOfItem(atPath: probe)[.modificationDate] as! Date
        }
        let start = try modified()
        while try modified() <= start { usleep(1_000) }
    }
}

/// A loader answering every download with `answer`'s response, counting
/// downloads, cancels and closes.
final class ScriptedLoader: DataLoading {
    private let answer: @Sendable (DownloadRequest) throws -> DownloadResponse
    private let calls = Mutex<(downloads: [DownloadRequest], cancels: Int, closes: Int)>(([], 0, 0))

    init(_ answer: @escaping @Sendable (DownloadRequest) throws -> DownloadResponse) {
        self.answer = answer
    }

    var downloads: [DownloadRequest] { calls.withLock { $0.downloads } }
    var cancels: Int { calls.withLock { $0.cancels } }

    func download(_ request: DownloadRequest) async throws -> DownloadResponse {
        calls.withLock { $0.downloads.append(request) }
        return try answer(request)
    }

    func cancelAll() { calls.withLock { $0.cancels += 1 } }
    func close() { calls.withLock { $0.closes += 1 } }
}
