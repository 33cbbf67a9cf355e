import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// The real downloader (libcurl) against the real loopback server.
@Suite(.serialized) struct DownloaderTests: LoopbackSuite {
    let fixture: LoopbackFixture

    init() throws { fixture = try LoopbackFixture() }

    func expectFailure(
        _ request: DownloadRequest, kind: ImageCoreError.Kind, using loader: Downloader,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ImageCoreError {
        do {
            let response = try await loader.download(request)
            Issue.record("expected a \(kind) error, got HTTP \(response.status)", sourceLocation: sourceLocation)
            return ImageCoreError(.failure, "no error")
        } catch let error as ImageCoreError {
            #expect(error.kind == kind, "\(error.message)", sourceLocation: sourceLocation)
            return error
        }
    }

    @Test func streamsTheBodyToATemporaryFile() async throws {
        server.route("/a.png", .ok(png, headers: ["Content-Type": "image/png", "ETag": "\"v1\""]))
        let response = try await downloader().download(request("/a.png"))
        #expect(response.status == 200)
        #expect(response.headers["etag"] == "\"v1\"")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: response.bodyPath))) == png)
        #expect(response.bodyPath.hasPrefix(directory.path))
        #expect(server.requestCount(for: "/a.png") == 1)
        let sent = try #require(server.requests.first)
        #expect(sent.header("User-Agent")?.hasPrefix("imgcache/") == true)
        #expect(sent.header("Accept") == AcceptHeader.value)
        #expect(AcceptHeader.value.hasPrefix("image/avif,image/jxl,image/webp,image/png,image/jpeg,image/gif,"))
    }

    /// After a cancel-all (SIGINT), a transfer queued later fails as
    /// interrupted instead of running to its end: its load may have passed
    /// the manager's check just before the signal came.
    @Test func aTransferQueuedAfterCancellingAllIsInterrupted() async throws {
        server.route("/a.png", .ok(png))
        let loader = try downloader()
        _ = try await loader.download(request("/a.png"))
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        loader.cancelAll()
        _ = try await expectFailure(request("/a.png"), kind: .interrupted, using: loader)
        #expect(server.requestCount(for: "/a.png") == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == before)
        loader.close()
    }

    @Test func errorStatusesAreHTTPErrorsAndOnlySomeAreTransient() async throws {
        server.route("/404", .status(404, body: Array("gone".utf8), headers: [:]))
        server.route("/503", .status(503, body: [], headers: ["Retry-After": "1"]))
        let loader = try downloader()
        let notFound = try await expectFailure(request("/404"), kind: .http, using: loader)
        #expect(notFound.httpStatus == 404 && !notFound.isTransient)
        let unavailable = try await expectFailure(request("/503"), kind: .http, using: loader)
        #expect(unavailable.httpStatus == 503 && unavailable.isTransient)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func aStalledServerTimesOutAsANetworkError() async throws {
        // Stalled until the server stops: the 1 s stall timeout is what
        // ends the transfer, however late the transfer's thread runs.
        server.route("/stall", .stall(seconds: 3600))
        defer { server.stop() }
        let error = try await expectFailure(request("/stall", timeout: 1), kind: .network, using: downloader())
        #expect(error.isTransient)
        #expect(error.message.hasPrefix("timed out"), "\(error.message)")
    }

    @Test func aBodyCutShortIsAConnectionLoss() async throws {
        server.route("/cut", .closeEarly(png + Array(repeating: 0, count: 5000), afterBytes: 100))
        server.route("/lying", .wrongContentLength(png, declared: png.count + 500))
        let loader = try downloader()
        _ = try await expectFailure(request("/cut"), kind: .network, using: loader)
        _ = try await expectFailure(request("/lying"), kind: .network, using: loader)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func followsRedirectsButOnlyToHTTP() async throws {
        server.route("/a.png", .ok(png, headers: [:]))
        server.route("/moved", .redirect(to: "/a.png", status: 302))
        server.route("/loop", .redirect(to: "/loop", status: 302))
        server.route("/file", .redirect(to: "file:///etc/passwd", status: 302))
        server.route("/ftp", .redirect(to: "ftp://127.0.0.1/x.png", status: 301))
        let loader = try downloader()
        let moved = try await loader.download(request("/moved"))
        #expect(moved.effectiveURL.hasSuffix("/a.png"))
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: moved.bodyPath))) == png)
        _ = try await expectFailure(request("/loop"), kind: .http, using: loader)
        #expect(server.requestCount(for: "/loop") == 11)
        _ = try await expectFailure(request("/file"), kind: .http, using: loader)
        _ = try await expectFailure(request("/ftp"), kind: .http, using: loader)
    }

    /// A redirect without a `Location` is not followed, and was taken for
    /// the answer: its body went to the image sniffer ("not a supported
    /// image", exit 5, remembered as the URL's failure) and a store's PUT so
    /// answered counted as an upload. It is the HTTP error it says it is.
    @Test func aRedirectNotFollowedIsAnHTTPError() async throws {
        server.route(
            "/gone", .status(301, body: Array("<html>moved</html>".utf8), headers: ["Content-Type": "text/html"]))
        let error = try await expectFailure(request("/gone"), kind: .http, using: downloader())
        #expect(error.httpStatus == 301 && error.message == "HTTP 301 Moved Permanently", "\(error.message)")
    }

    @Test func stopsAnHTMLPageAtItsFirstBytes() async throws {
        let page = "<!DOCTYPE html><html>" + String(repeating: "<p>not an image</p>", count: 50_000)
        server.route("/page.jpg", .html(page))
        let error = try await expectFailure(request("/page.jpg"), kind: .image, using: downloader())
        #expect(error.message.contains("HTML"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func enforcesTheByteCapWhileStreaming() async throws {
        server.route("/big", .chunked(png + Array(repeating: 1, count: 300_000), chunkSize: 8192))
        server.route("/big-declared", .ok(png + Array(repeating: 1, count: 300_000), headers: [:]))
        var capped = request("/big")
        capped.maxBytes = 100_000
        let loader = try downloader()
        _ = try await expectFailure(capped, kind: .image, using: loader)
        capped.url = server.url("/big-declared")
        _ = try await expectFailure(capped, kind: .image, using: loader)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func runsAtMostTheConfiguredNumberOfTransfersAtOnce() async throws {
        for index in 0..<6 { server.route("/slow\(index)", .trickle(png, bytesPerSecond: 200)) }
        let loader = try downloader(concurrency: 2)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<6 {
                let request = request("/slow\(index)", timeout: 10)
                group.addTask { _ = try await loader.download(request) }
            }
            try await group.waitForAll()
        }
        // Each transfer lasts over half a second, so the server sees them overlap.
        #expect(server.peakConcurrentRequests == 2)
        #expect(server.requestCount == 6)
    }

    @Test func aLongQueueHoldsFewBodiesOpenAndCancellingItRemovesThem() async throws {
        // Stalled until the server stops, with no stall timeout: the queue
        // this test counts and cancels holds however late its task runs
        // again (the suites beside it block the two threads async tests
        // share, for over a minute under a sanitizer; with 10 s the stalled
        // transfer could time out first and fail the group).
        server.route("/stall", .stall(seconds: 3600))
        defer { server.stop() }
        let loader = try downloader(concurrency: 1)
        let task = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    let request = request("/stall", timeout: 3600)
                    group.addTask { _ = try await loader.download(request) }
                }
                try await group.waitForAll()
            }
        }
        // Wait for the state checked, the one slot's transfer at the server
        // with its body open, rather than assume when it arrives: under TSan
        // a fixed half second was not enough (a CI run saw no body yet).
        let bodies = { try FileManager.default.contentsOfDirectory(atPath: self.directory.path) }
        #expect(await waitUntil { self.server.requestCount >= 1 })
        #expect(try await waitUntil { try !bodies().isEmpty })
        // One running transfer and at most two bodies opened ahead per slot:
        // not a file per queued URL.
        let open = try bodies()
        #expect(open.count >= 1 && open.count <= 3, "\(open)")
        task.cancel()
        _ = try? await task.value
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func cancellingTheTaskCancelsTheTransferAndRemovesItsFile() async throws {
        // Stalled until the server stops, with no stall timeout: the
        // transfer is still running when this test's task gets to cancel it,
        // however late (with 10 s it could time out first: a network error,
        // not the cancellation checked).
        server.route("/stall", .stall(seconds: 3600))
        defer { server.stop() }
        let loader = try downloader()
        let request = request("/stall", timeout: 3600)
        let task = Task { try await loader.download(request) }
        // Cancelled mid-transfer: once the server has the request and the body file is open.
        #expect(await waitUntil { self.server.requestCount >= 1 })
        #expect(
            try await waitUntil { try !FileManager.default.contentsOfDirectory(atPath: self.directory.path).isEmpty })
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("expected cancellation")
        } catch let error as ImageCoreError {
            #expect(error.kind == .interrupted)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func sendsHeadersAndCredentialsAsAsked() async throws {
        server.route("/a.png", .ok(png, headers: [:]))
        var request = request("/a.png")
        request.headers = [HTTPHeader(name: "X-Trace", value: "42")]
        request.credentials = "user:secret"
        _ = try await downloader().download(request)
        let sent = try #require(server.requests.last)
        #expect(sent.header("X-Trace") == "42")
        #expect(sent.header("Authorization") == "Basic " + Data("user:secret".utf8).base64EncodedString())
    }
}
