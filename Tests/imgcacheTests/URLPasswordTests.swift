import Foundation
import ImageCore
import TestSupport
import Testing

/// A URL's own `user:password@` (as curl takes it): the password is sent,
/// as `-u` would send it, and never printed, logged or kept in the cache.
@Suite(.serialized) struct URLPasswordTests: CommandSuite {
    let fixture: CommandFixture

    init() throws {
        fixture = try CommandFixture()
        server.route("/private.png") { request in
            request.header("Authorization") == "Basic " + Data("alice:s3cret".utf8).base64EncodedString()
                ? .ok(Fixtures.tinyPNG) : .status(401, headers: ["WWW-Authenticate": "Basic realm=\"x\""])
        }
    }

    /// The server's URL for `path` with `userinfo@` in it.
    func url(_ path: String, userinfo: String) -> String {
        server.url(path).replacingOccurrences(of: "http://", with: "http://\(userinfo)@")
    }

    /// Every file under the cache directory, as bytes.
    var cacheFiles: [(path: String, bytes: Data)] {
        let root = URL(fileURLWithPath: cache.path)
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).compactMap { file in
            (try? Data(contentsOf: file)).map { (file.path, $0) }
        }
    }

    func expectNoSecret(_ secret: String, in results: [CLI.Result], sourceLocation: SourceLocation = #_sourceLocation) {
        for result in results {
            #expect(!result.stdoutText.contains(secret), "\(result.stdoutText)", sourceLocation: sourceLocation)
            #expect(!result.stderr.contains(secret), "\(result.stderr)", sourceLocation: sourceLocation)
        }
        for file in cacheFiles where file.bytes.range(of: Data(secret.utf8)) != nil {
            Issue.record("\(secret) kept in \(file.path)", sourceLocation: sourceLocation)
        }
    }

    @Test func thePasswordIsSentAndNeverShownOrKept() throws {
        let good = url("/private.png", userinfo: "alice:s3cret")
        let fetched = try run("fetch", "-v", "--json", good)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(server.requestCount(for: "/private.png") == 1)
        let again = try run("fetch", "-v", "--path", good)
        #expect(again.status == 0 && server.requestCount(for: "/private.png") == 1, "\(again.stderr)")
        // Warm hits, each as the fast path answers it.
        let warm = try ["--json", "--path"].map { try run("fetch", $0, good) }
        #expect(warm.allSatisfy { $0.status == 0 } && server.requestCount(for: "/private.png") == 1)
        let prefetched = try run(["prefetch", "-v", "--json", "--refresh"], stdin: Array("\(good)\n".utf8))
        #expect(prefetched.status == 0, "\(prefetched.stderr)")
        let stat = try run("stat", "-v", "--json")
        let purged = try run("purge", "-v", good)
        #expect(purged.status == 0, "\(purged.stderr)")
        expectNoSecret("s3cret", in: [fetched, again, prefetched, stat, purged] + warm)
    }

    /// `prefetch` shows a URL as `fetch` does, `user:***`, whichever way its
    /// line is answered: a hit where the list is read (which printed the
    /// line as given), a load downloaded or failed (its error line), with
    /// `-v` and `--json`.
    @Test func prefetchShowsTheUserAndHidesThePassword() throws {
        let lines = [url("/private.png", userinfo: "alice:s3cret"), url("/missing.png", userinfo: "alice:s3cret")]
        let shown = [url("/private.png", userinfo: "alice:***"), url("/missing.png", userinfo: "alice:***")]
        let list = Array(lines.map { "\($0)\n" }.joined().utf8)
        let cold = try run(["prefetch", "-v", "--json"], stdin: list)
        #expect(cold.status == 4, "\(cold.stderr)")
        // Warm: the first line is a fresh hit, answered where the list is read.
        let warm = try run(["prefetch", "-v", "--json"], stdin: list)
        #expect(warm.status == 6, "\(warm.stderr)")
        #expect(server.requestCount(for: "/private.png") == 1)
        for result in [cold, warm] {
            let urls = result.stdoutLines.compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["url"] as? String
            }
            #expect(urls.sorted() == shown.sorted(), "\(result.stdoutText)")
            #expect(result.stderr.contains("imgcache: \(shown[1]): "), "\(result.stderr)")
        }
        expectNoSecret("s3cret", in: [cold, warm])
    }

    @Test func aWrongPasswordFailsForItselfAndIsNeverShownOrKept() throws {
        let wrong = url("/private.png", userinfo: "alice:wr0ngpw")
        let refused = try run("fetch", "-v", "--json", wrong)
        #expect(refused.status == 4, "\(refused.stderr)")
        let remembered = try run("fetch", "-v", "-o", "/dev/null", wrong)
        #expect(remembered.status == 6, "\(remembered.stderr)")
        // The right password is another request: not refused by the wrong one's record.
        let good = try run("fetch", "-o", "/dev/null", url("/private.png", userinfo: "alice:s3cret"))
        #expect(good.status == 0, "\(good.stderr)")
        #expect(server.requestCount(for: "/private.png") == 2)
        let stat = try run("stat", "-v", "--json")
        expectNoSecret("wr0ngpw", in: [refused, remembered, good, stat])
        expectNoSecret("s3cret", in: [good, stat])
    }
}
