import Foundation
import TestSupport

@testable import ImageCore

/// What the suites against one loopback server share (the downloader's,
/// the warm-hit path's): the server, a directory (a downloader's temporary
/// directory, or a cache), the PNG they serve, and downloaders into it.
protocol LoopbackSuite {
    var fixture: LoopbackFixture { get }
}

/// A suite instance's server and directory (removed when the instance goes).
struct LoopbackFixture {
    let server: TestHTTPServer
    let directory: TemporaryDirectory

    init() throws {
        server = try TestHTTPServer()
        directory = try TemporaryDirectory()
    }
}

extension LoopbackSuite {
    var server: TestHTTPServer { fixture.server }
    var directory: TemporaryDirectory { fixture.directory }
    var png: [UInt8] { Fixtures.tinyPNG }

    /// A downloader into the directory, `concurrency` transfers at a time.
    func downloader(concurrency: Int = 6) throws -> Downloader {
        var settings = Downloader.Configuration(temporaryDirectory: directory.path)
        settings.maxConcurrentDownloads = concurrency
        return try Downloader(configuration: settings)
    }

    func request(_ path: String, timeout: Double = 5) -> DownloadRequest {
        var request = DownloadRequest(url: server.url(path))
        request.timeout = timeout
        return request
    }
}
