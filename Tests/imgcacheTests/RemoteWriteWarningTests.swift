import Foundation
import TestSupport
import Testing

/// Issue 26, finding 9: a remote storage that refuses writes (nginx's
/// WebDAV answering every PUT with an error) is said once on stderr, not
/// only with `-v`, and never per URL; the run still succeeds.
@Suite(.serialized) struct RemoteWriteWarningTests: CommandSuite {
    let fixture: CommandFixture

    init() throws {
        fixture = try CommandFixture()
        for name in ["a", "b", "c"] { server.route("/\(name).png", .ok(Fixtures.tinyPNG + [UInt8(name.utf8.first!)])) }
    }

    @Test func aRefusedWriteIsOneLineForTheRun() throws {
        // The store is the loopback server itself: no route under /store, so GET and PUT get 404.
        let store = server.url("/store")
        let urls = ["a", "b", "c"].map { server.url("/\($0).png") }
        let result = try run(
            ["fetch", "--remote-storage", store, "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null"] + urls)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.hasPrefix("imgcache: remote storage \(store) refused a write (") == true)
        #expect(lines.first?.contains("HTTP 404") == true, "\(result.stderr)")
        #expect(lines.first?.hasSuffix("); nothing more is uploaded to it in this run") == true, "\(result.stderr)")
        #expect(server.requests.contains { $0.method == "PUT" })
        let quiet = try run(["fetch", "-q", "--refresh", "--remote-storage", store, "-o", "/dev/null", urls[0]])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    /// nginx's WebDAV answers every PUT with 500 until its root exists, and
    /// its GETs 404: a run with fewer uploads than the three strikes that
    /// turn a store off still says, once, that none went through.
    @Test func aRunWhoseUploadsAllFailSaysSoOnce() throws {
        server.routeOthers { request in .status(request.method == "PUT" ? 500 : 404) }
        let store = server.url("/store")
        let urls = ["a", "b"].map { server.url("/\($0).png") }
        let result = try run(["fetch", "--remote-storage", store, "-o", "/dev/null", "-o", "/dev/null"] + urls)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.split(separator: "\n") == [
                "imgcache: remote storage \(store): no upload went through in this run (PUT \(store): HTTP 500 Internal Server Error)"
            ], "\(result.stderr)")
        #expect(server.requests.filter { $0.method == "PUT" }.count == 2)
        let quiet = try run(["fetch", "-q", "--refresh", "--remote-storage", store, "-o", "/dev/null", urls[0]])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    }
}
