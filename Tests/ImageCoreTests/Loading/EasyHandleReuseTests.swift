import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImageCore

/// A finished transfer's easy handle carries the next one (`IdleEasyHandles`,
/// `CurlEasyHandle.TransferOptions`): through one downloader that runs one
/// transfer at a time, against the real loopback server, nothing of one
/// request may reach the next.
@Suite(.serialized) struct EasyHandleReuseTests: LoopbackSuite {
    let fixture: LoopbackFixture

    init() throws { fixture = try LoopbackFixture() }

    /// A downloader with one transfer at a time, so each transfer takes the last one's handle.
    func downloader() throws -> Downloader { try downloader(concurrency: 1) }

    /// The loop gives a finished transfer's easy handle to the next one
    /// (`IdleEasyHandles`): nothing of the first request may reach the second.
    @Test func aReusedHandleCarriesNothingOfTheLastRequest() async throws {
        server.route("/entry", .status(204, body: []))
        server.route("/a.png", .ok(png, headers: [:]))
        let loader = try downloader()
        var first = request("/entry")
        first.method = "DELETE"
        first.expectsImage = false
        first.keepsBodyInMemory = true
        first.headers = [HTTPHeader(name: "X-Trace", value: "42"), HTTPHeader(name: "Accept", value: "*/*")]
        first.credentials = "user:secret"
        first.maxBytes = 10
        _ = try await loader.download(first)
        let response = try await loader.download(request("/a.png"))
        #expect(response.status == 200)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: response.bodyPath))) == png)
        let sent = try #require(server.requests.last)
        #expect(sent.method == "GET")
        #expect(sent.path == "/a.png")
        #expect(sent.header("X-Trace") == nil)
        #expect(sent.header("Authorization") == nil)
        #expect(sent.header("Accept") == AcceptHeader.value)
        #expect(server.requests.map(\.method) == ["DELETE", "GET"])
    }

    /// A kept handle whose next transfer has the same options keeps them
    /// (`CurlEasyHandle.TransferOptions`) and gets only its URL and headers:
    /// a header, the credentials or the method of one request must not reach the next.
    @Test func aKeptHandleSendsOnlyThisRequestsHeadersAndCredentials() async throws {
        server.route("/a.png", .ok(png, headers: [:]))
        server.route("/b.png", .ok(png, headers: [:]))
        server.route("/entry", .status(204, body: []))
        let loader = try downloader()
        var traced = request("/a.png")
        traced.headers = [HTTPHeader(name: "X-Trace", value: "42")]
        var signed = request("/b.png")
        signed.credentials = "user:secret"
        var removal = request("/entry")
        removal.method = "DELETE"
        removal.expectsImage = false
        removal.keepsBodyInMemory = true
        for asked in [traced, request("/b.png"), traced, signed, request("/a.png"), removal, request("/b.png")] {
            _ = try await loader.download(asked)
        }
        let sent = server.requests
        #expect(sent.map(\.path) == ["/a.png", "/b.png", "/a.png", "/b.png", "/a.png", "/entry", "/b.png"])
        #expect(sent.map { $0.header("X-Trace") } == ["42", nil, "42", nil, nil, nil, nil])
        #expect(sent.map { $0.header("Authorization") != nil } == [false, false, false, true, false, false, false])
        #expect(sent.map(\.method) == ["GET", "GET", "GET", "GET", "GET", "DELETE", "GET"])
        #expect(sent.allSatisfy { $0.header("Accept") == AcceptHeader.value })
    }

    /// A body to send is not one of `TransferOptions`: a request with one
    /// after a request with the same options and none (an empty PUT, then a
    /// PUT of bytes) must still send its bytes, not the kept handle's nothing.
    @Test func aKeptHandleSendsTheBodyOfTheNextRequest() async throws {
        let bodies = Mutex<[[UInt8]]>([])
        server.route("/entry") { received in
            bodies.withLock { $0.append(received.body) }
            return .status(204, body: [])
        }
        let loader = try downloader()
        var empty = request("/entry")
        empty.method = "PUT"
        empty.expectsImage = false
        empty.keepsBodyInMemory = true
        var upload = empty
        upload.uploadBody = Array("bytes".utf8)
        for asked in [upload, empty, upload] { _ = try await loader.download(asked) }
        #expect(bodies.withLock { $0 } == [Array("bytes".utf8), [], Array("bytes".utf8)])
    }
}
