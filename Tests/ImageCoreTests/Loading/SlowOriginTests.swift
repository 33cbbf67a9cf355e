import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImageCore

/// The downloader against a rate-limited nginx (`limit_rate`), the way a
/// slow origin behaves: transfers to one host run side by side.
@Suite(.serialized) struct SlowOriginTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// nginx serving `count` files of `size` bytes as /0.png, /1.png... at
    /// `limit_rate` bytes per second per connection.
    func slowNginx(count: Int, size: Int, rate: String) throws -> NginxProcess {
        let root = "\(directory.path)/www"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for index in 0..<count {
            let bytes = Fixtures.tinyPNG + [UInt8](repeating: UInt8(index), count: size - Fixtures.tinyPNG.count)
            try Data(bytes).write(to: URL(fileURLWithPath: "\(root)/\(index).png"))
        }
        return try NginxProcess(serverBody: "root \(root); limit_rate \(rate);")
    }

    @Test(.enabled(if: LoopbackServices.haveNginx, "nginx is not installed (make deps installs nginx-light)"))
    func sixTransfersToOnePlainHTTPHostAllReceiveBytesWithinTheFirstSecond() async throws {
        // 120 KB at 20 KB/s is about 5 s a file: had the transfers waited
        // for one another (CURLOPT_PIPEWAIT on http://), the second would get
        // its first byte seconds after it was asked for. Each wait counts from
        // its own request: the tasks may wait for a thread while other suites run.
        let nginx = try slowNginx(count: 6, size: 120_000, rate: "20k")
        var settings = Downloader.Configuration(temporaryDirectory: directory.path)
        settings.maxConcurrentDownloads = 6
        let loader = try Downloader(configuration: settings)
        defer { loader.close() }
        let times = Times()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<6 {
                var request = DownloadRequest(url: "\(nginx.url)/\(index).png")
                request.onProgress = { _, _ in
                    let now = MonotonicClock.now()
                    times.firstBytes.withLock { if $0[index] == nil { $0[index] = now } }
                    times.lastByte.withLock { $0 = max($0, now) }
                }
                group.addTask { [request] in
                    times.asked.withLock { $0[index] = MonotonicClock.now() }
                    let response = try await loader.download(request)
                    #expect(response.bodySize == 120_000)
                    return index
                }
            }
            for try await _ in group {}
        }
        let end = times.lastByte.withLock { $0 }
        let seen = times.firstBytes.withLock { $0 }
        #expect(seen.count == 6)
        let askedAt = times.asked.withLock { $0 }
        let waits = seen.map { index, time in (index, time - askedAt[index, default: 0]) }.sorted { $0.0 < $1.0 }
        #expect(waits.allSatisfy { $0.1 < 1.5 }, "first bytes after \(waits)")
        let first = seen.values.min() ?? end
        // Six connections at 20 KB/s each: about 6 s, not 36.
        #expect(end - first < 20, "took \(end - first) s")
    }
}

/// When each transfer was asked for and got its first byte, and when the
/// last byte of all arrived: on the download thread, which no other suite's
/// work delays, unlike the test task's own wake-up.
private final class Times: Sendable {
    let asked = Mutex([Int: Double]())
    let firstBytes = Mutex([Int: Double]())
    let lastByte = Mutex(0.0)
}
