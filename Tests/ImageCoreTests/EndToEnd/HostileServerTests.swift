import Foundation
import Testing
@testable import ImageCore

/// Servers that misbehave: each case ends promptly with its documented exit
/// status and leaves nothing in the cache.
@Suite(.serialized) struct HostileServerTests {
    let server: TestHTTPServer
    let cache: TemporaryDirectory
    let png = Fixtures.tinyPNG

    init() throws {
        server = try TestHTTPServer()
        cache = try TemporaryDirectory()
    }

    func fetch(_ arguments: String...) throws -> CLI.Result {
        try CLI.run(["fetch", "--retries", "0", "-o", "/dev/null"] + arguments, cacheDir: cache.path, timeout: 30)
    }

    func expectNothingCached(_ url: String) throws {
        #expect(try CLI.run(["stat", "-q", url], cacheDir: cache.path).status == 7)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(cache.path)/tmp").isEmpty)
    }

    @Test func aFiftyHopRedirectChainStopsAtTheLimit() throws {
        server.route("/hop") { request in
            let hop = Int(request.path.split(separator: "=").last ?? "0") ?? 0
            return .redirect(to: "/hop?n=\(hop + 1)")
        }
        let result = try fetch(server.url("/hop?n=0"))
        #expect(result.status == 4)
        #expect(server.requestCount(for: "/hop") == 11)
        try expectNothingCached(server.url("/hop?n=0"))
    }

    @Test func redirectsOffHTTPAreRefused() throws {
        server.route("/ftp.png", .redirect(to: "ftp://127.0.0.1/x.png"))
        server.route("/file.png", .redirect(to: "file:///etc/passwd"))
        for path in ["/ftp.png", "/file.png"] {
            let result = try fetch(server.url(path))
            #expect(result.status == 4, "\(path): \(result.stderr)")
            try expectNothingCached(server.url(path))
        }
    }

    @Test func aGzipBombIsNotInflated() throws {
        let bomb = try ScalingTests.shell("head -c 50000000 /dev/zero | gzip -9")
        server.route("/bomb.png", .ok(bomb, headers: ["Content-Encoding": "gzip", "Content-Type": "image/png"]))
        let result = try fetch(server.url("/bomb.png"))
        #expect(result.status == 5)
        try expectNothingCached(server.url("/bomb.png"))
    }

    @Test func hugeHeadersAreAnError() throws {
        server.route("/headers.png", .ok(png, headers: ["X-Filler": String(repeating: "a", count: 300_000)]))
        let result = try fetch(server.url("/headers.png"))
        #expect([3, 4].contains(result.status), "\(result.status) \(result.stderr)")
        try expectNothingCached(server.url("/headers.png"))
    }

    @Test func anEndlessBodyStopsAtTheByteCap() throws {
        let endless = png + [UInt8](repeating: 0, count: 3_000_000)
        server.route("/endless.png", .chunked(endless, chunkSize: 16_384))
        let result = try fetch("--max-bytes", "256K", server.url("/endless.png"))
        #expect(result.status == 5)
        #expect(result.stderr.contains("larger than the limit"))
        try expectNothingCached(server.url("/endless.png"))
    }

    @Test func contentLengthLiesInEitherDirection() throws {
        let jpeg = try Fixtures.bytes("baseline.jpg")
        server.route("/longer.jpg", .wrongContentLength(jpeg, declared: jpeg.count + 1000))
        server.route("/shorter.jpg", .wrongContentLength(jpeg, declared: jpeg.count / 2))
        #expect(try fetch(server.url("/longer.jpg")).status == 3)
        try expectNothingCached(server.url("/longer.jpg"))
        // Only the declared half arrives: an image cut short, refused before storing.
        #expect(try fetch(server.url("/shorter.jpg")).status == 5)
        try expectNothingCached(server.url("/shorter.jpg"))
    }
}
