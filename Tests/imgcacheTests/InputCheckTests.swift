import Foundation
import TestSupport
import Testing

/// Issue 35, class 2: input that is not what it seems is said for what it
/// is: a list that cannot be read is an error, not an empty list; a URL
/// WHATWG parsing accepts is fetched (a space is %20), one it refuses is a
/// usage error, as is anything purge or stat is given that is no URL; with
/// no HOME the cache goes where the password database says home is.
@Suite(.serialized) struct InputCheckTests: CommandSuite {
    let fixture: CommandFixture

    init() throws {
        fixture = try CommandFixture()
        server.route("/a%20b.png", .ok(Fixtures.tinyPNG))
    }

    @Test func aListThatCannotBeReadIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        let named = try run("prefetch", directory.path)
        #expect(named.status == 1, "\(named.stderr)")
        #expect(named.stderr == "imgcache: cannot read \(directory.path): Is a directory\n")
        // The same list on stdin (sh opens the directory for reading).
        let piped = try CLI.run(
            ["-c", "exec \"$0\" prefetch <\"$1\"", CLI.executable.path, directory.path], cacheDir: cache.path,
            executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(piped.status == 1, "\(piped.stderr)")
        #expect(piped.stderr == "imgcache: cannot read standard input: Is a directory\n")
    }

    @Test func aSpaceInAPathIsSentAndKeyedAsPercent20() throws {
        let written = server.url("/a b.png")
        let result = try fetch(written)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == Fixtures.tinyPNG)
        #expect(server.requests.map(\.path) == ["/a%20b.png"])
        // One entry, whichever way the URL is written.
        #expect(try run("stat", "-q", server.url("/a%20b.png")).status == 0)
        #expect(try fetch("--offline", written).stdout == Fixtures.tinyPNG)
    }

    @Test func urlsNoParserAcceptsAreUsageErrors() throws {
        let cases: [(arguments: [String], says: String)] = [
            (["fetch", "http://[::1"], "'http://[::1' is not a valid URL: no ] after the IPv6 address"),
            (["fetch", "http://[::1]x/"], "'http://[::1]x/' is not a valid URL: characters after the IPv6 address"),
            (["fetch", "http://[zz]/"], "'http://[zz]/' is not a valid URL: not an IPv6 address in [ ]"),
            (["fetch", "http://host:99999/a.png"], "port '99999' is not a number up to 65535"),
            (["fetch", "http://:80/a.png"], "'http://:80/a.png' is not a valid URL: no host"),
            (["fetch", "http://a b/x.png"], "a character no host may contain"),
            (["purge", "not-a-url"], "purge: 'not-a-url' is not an http or https URL"),
            (["purge", "--failed", "htp://typo/a.png"], "'htp://typo/a.png' is not an http or https URL"),
            (["stat", "not-a-url"], "stat: 'not-a-url' is not an http or https URL"),
        ]
        for (arguments, says) in cases {
            let result = try run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(says), "\(arguments): \(result.stderr)")
        }
        #expect(server.requestCount == 0)
        // An IPv6 literal that is one, with a port, passes the check (and fails to connect, exit 3).
        let ipv6 = try fetch("--retries", "0", "http://[::1]:1/a.png")
        #expect(ipv6.status == 3, "\(ipv6.stderr)")
    }

    /// Session 16 review: a prefetch line `fetch` refuses as an argument was
    /// "malformed URL (URL using bad/illegal format or missing URL)", kind
    /// usage, from libcurl (`http://`, `http://[::1`), or "only http, https
    /// and s3 URLs are supported", kind failure, from the downloader (`not a
    /// url`, `ftp://…`): one list, two kinds, so exit 64 or 1 by which bad
    /// line it held. Each is refused as `fetch` refuses it, kind usage.
    @Test func prefetchRefusesALineAsFetchRefusesTheArgument() throws {
        let good = server.url("/a%20b.png")
        let bad: [(line: String, says: String)] = [
            ("not a url", "not an http or https URL (nor s3://BUCKET/KEY)"),
            ("ftp://127.0.0.1/x.png", "not an http or https URL (nor s3://BUCKET/KEY)"),
            ("http://", "not an http or https URL (nor s3://BUCKET/KEY)"),
            ("http://[::1/x.png", "not a valid URL: no ] after the IPv6 address"),
            ("http://a b/x.png", "not a valid URL: a character no host may contain"),
        ]
        let list = ([good] + bad.map(\.line)).joined(separator: "\n") + "\n"
        let result = try run(["prefetch", "--json"], stdin: Array(list.utf8))
        #expect(result.status == 64, "\(result.stderr)")
        for (line, says) in bad {
            #expect(result.stderr.contains("imgcache: \(line): \(says)\n"), "\(line): \(result.stderr)")
            let fetched = try run("fetch", line)
            #expect(fetched.status == 64 && fetched.stderr.contains("'\(line)' is \(says)"), "\(fetched.stderr)")
        }
        let kinds = try result.stdoutLines.compactMap { line -> String? in
            let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return (record?["error"] as? [String: Any])?["kind"] as? String
        }
        #expect(kinds == Array(repeating: "usage", count: bad.count), "\(result.stdoutText)")
        #expect(server.requests.map(\.path) == ["/a%20b.png"])
    }

    @Test func withoutHomeTheCacheIsInThePasswordDatabasesHome() throws {
        let home = try #require(getpwuid(getuid())).pointee.pw_dir.map { String(cString: $0) }
        let expected = "\(try #require(home))/.cache/imgcache"
        // Empty is unset to imgcache, as it is to the shell's ~.
        for variables in [["HOME": "", "XDG_CACHE_HOME": ""], ["HOME": "", "XDG_CACHE_HOME": "relative/path"]] {
            let result = try run(["stat", "--json"], environment: variables.merging(["IMGCACHE_DIR": ""]) { $1 })
            #expect(result.status == 0, "\(result.stderr)")
            let record = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any]
            #expect(record?["cache_dir"] as? String == expected, "\(variables)")
        }
    }
}
