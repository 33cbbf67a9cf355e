import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// The `Accept` header: built from the decoders present, replaced by `-H`,
/// and a `Vary: Accept` entry stored under an earlier default still served.
@Suite(.serialized) struct AcceptHeaderTests: CommandSuite {
    let fixture: CommandFixture

    init() throws {
        fixture = try CommandFixture()
    }

    @Test func theHeaderNamesTheDecodersPresent() {
        #expect(
            AcceptHeader.value(decoding: { _ in true })
                == "image/avif,image/jxl,image/webp,image/png,image/jpeg,image/gif,*/*;q=0.5")
        #expect(
            AcceptHeader.value(decoding: { $0 != .avif && $0 != .jxl })
                == "image/webp,image/png,image/jpeg,image/gif,*/*;q=0.5")
        // libavif is installed here (make deps), so this process names AVIF.
        #expect(AcceptHeader.isDecodable(.avif) && AcceptHeader.value.hasPrefix("image/avif,"))
        #expect(!SharedLibraryPresence.isInstalled("libimgcache-no-such-library.so.9"))
    }

    @Test func sentUnlessReplacedByH() throws {
        server.route("/a.png", .ok(Fixtures.tinyPNG))
        #expect(try fetch(server.url("/a.png")).status == 0)
        #expect(server.requests.last?.header("Accept") == AcceptHeader.value)
        #expect(try fetch("--refresh", "-H", "Accept: image/png", server.url("/a.png")).status == 0)
        #expect(server.requests.last?.header("Accept") == "image/png")
    }

    @Test func aVaryAcceptEntryOutlivesAChangeOfDefault() throws {
        server.route("/v.png", .ok(Fixtures.tinyPNG, headers: ["Vary": "Accept", "Cache-Control": "max-age=600"]))
        // Stored by a run that sent the header imgcache sent before (as an older imgcache did).
        let older = try fetch("-H", "Accept: \(DownloadRequest.varyDefaultAccept)", server.url("/v.png"))
        #expect(older.status == 0 && server.requestCount(for: "/v.png") == 1)
        // Today's default names AVIF too, and is served the same entry.
        #expect(try fetch(server.url("/v.png")).stdout == Fixtures.tinyPNG)
        #expect(try fetch("--offline", server.url("/v.png")).status == 0)
        #expect(server.requestCount(for: "/v.png") == 1)
        // Another Accept sent with -H is another variant.
        #expect(try fetch("-H", "Accept: image/png", server.url("/v.png")).status == 0)
        #expect(server.requestCount(for: "/v.png") == 2)
    }
}
