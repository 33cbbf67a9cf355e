import Foundation
import ImageCore
import TestSupport
import Testing

@testable import imgcache

/// The built binary against the loopback server (issue 15, items 4, 6, 8 and 12).
@Suite(.serialized) struct CommandLineTests: CommandSuite {
    let fixture: CommandFixture
    let png = Fixtures.tinyPNG

    init() throws {
        fixture = try CommandFixture()
        server.route("/a.png", .ok(png))
    }

    // 4.

    @Test func bareImgcachePrintsAShortUsageAndExits64() throws {
        let result = try CLI.run([], cacheDir: cache.path)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("usage: imgcache "))
        #expect(result.stderr.split(separator: "\n").count <= 10)
    }

    @Test func usageErrorsAreOneLineWithExit64() throws {
        let bogus = try run("fetch", "--bogus", server.url("/a.png"))
        #expect(bogus.status == 64)
        #expect(bogus.stderr == "imgcache: fetch: unknown option '--bogus' (see 'imgcache help fetch')\n")
        let help = try run("help", "nosuch")
        #expect(help.status == 64)
        #expect(help.stderr == "imgcache: help: no subcommand 'nosuch' (see 'imgcache --help')\n")
        #expect(help.stdout.isEmpty)
        let noSubcommand = try run("-q", "--cache-dir", cache.path)
        #expect(noSubcommand.status == 64)
        #expect(noSubcommand.stderr == "imgcache: no subcommand after -q (see 'imgcache --help')\n")
        let helpFetch = try run("help", "fetch")
        #expect(helpFetch.status == 0)
        #expect(helpFetch.stdoutText.contains("--decode"))
        #expect(server.requestCount(for: "/a.png") == 0)
    }

    /// An unknown option is the first error named, whatever else is wrong
    /// with the line: `fetch --bogus` without a URL said "missing expected
    /// argument '<url> ...'", `--thumbail 64x64 URL` that '64x64' is no URL.
    @Test func anUnknownOptionIsTheFirstErrorNamed() throws {
        let url = server.url("/a.png")
        let lines: [([String], String)] = [
            (["fetch", "--bogus"], "imgcache: fetch: unknown option '--bogus' (see 'imgcache help fetch')"),
            (
                ["fetch", "-o", "out", "--bogus"],
                "imgcache: fetch: unknown option '--bogus' (see 'imgcache help fetch')"
            ),
            (
                ["fetch", "--thumbail", "64x64", url],
                "imgcache: fetch: unknown option '--thumbail'; did you mean '--thumbnail'? (see 'imgcache help fetch')"
            ),
            (["stat", "--bogus"], "imgcache: stat: unknown option '--bogus' (see 'imgcache help stat')"),
            (["purge", "--bogus"], "imgcache: purge: unknown option '--bogus' (see 'imgcache help purge')"),
            (["clean", "-qx"], "imgcache: clean: unknown option '-x' (see 'imgcache help clean')"),
            (
                ["prefetch", "--bogus=3", "list"],
                "imgcache: prefetch: unknown option '--bogus' (see 'imgcache help prefetch')"
            ),
            (["fecth", url], "imgcache: no subcommand 'fecth'; did you mean 'fetch'? (see 'imgcache --help')"),
        ]
        for (arguments, line) in lines {
            let result = try CLI.run(arguments, cacheDir: cache.path)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr == line + "\n", "\(arguments)")
        }
        #expect(server.requestCount(for: "/a.png") == 0)
    }

    @Test func globalOptionsAndAttachedValuesWorkEndToEnd() throws {
        let other = try TemporaryDirectory()
        let file = "\(other.path)/out.png"
        let result = try run("--cache-dir", other.path, "-q", "fetch", "-o\(file)", server.url("/a.png"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: file) == Data(png))
        #expect(try run("stat", "--cache-dir", other.path, "-q", server.url("/a.png")).status == 0)
        #expect(try run("stat", "-q", server.url("/a.png")).status == 7)
    }

    // 6.

    @Test func purgeNeedsURLsAllOrFailed() throws {
        let url = server.url("/a.png")
        #expect(try run("fetch", "-o", "/dev/null", url).status == 0)
        let bare = try run("purge")
        #expect(bare.status == 64)
        #expect(
            bare.stderr
                == "imgcache: purge: give URLs, --all or --failed; nothing was removed (see 'imgcache help purge')\n")
        #expect(try run("stat", "-q", url).status == 0, "a bare purge removed the entry")
        let removed = try run("purge", url, server.url("/other.png"))
        #expect(removed.status == 0)
        #expect(removed.stdoutLines == ["removed \(url)", "not cached: \(server.url("/other.png"))"])
        #expect(try run("stat", "-q", url).status == 7)
        #expect(try run("purge", "-q", url).stdout.isEmpty)
        #expect(try run("fetch", "-o", "/dev/null", url).status == 0)
        let all = try run("purge", "--all")
        #expect(all.status == 0)
        #expect(try run("stat", "-q", url).status == 7)
    }

    // 11.

    @Test func outputDirIsCreatedAndPathsHaveNoDoubleSlash() throws {
        let work = try TemporaryDirectory()
        let result = try run("fetch", "--output-dir", "\(work.path)/new/sub/", server.url("/a.png"))
        #expect(result.status == 0, "\(result.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: "\(work.path)/new/sub")
        #expect(names.count == 1 && names[0].hasSuffix(".png"))
        #expect(OutputFile.path("a.png", in: "/x//") == "/x/a.png" && OutputFile.path("a.png", in: "/") == "/a.png")
    }

    @Test func verboseSaysWhenAThumbnailIsMade() throws {
        let made = try run("fetch", "-v", "--thumbnail", "2x2", "-o", "/dev/null", server.url("/a.png"))
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stderr.contains("imgcache: scaled to 2×2: \(server.url("/a.png"))"), "\(made.stderr)")
        #expect(made.stderr.contains("imgcache: encoded as png"), "\(made.stderr)")
        let again = try run("fetch", "-v", "--thumbnail", "2x2", "-o", "/dev/null", server.url("/a.png"))
        #expect(again.stderr.contains("variant from disk"), "\(again.stderr)")
    }

    @Test func cleanAndPrefetchSummariesAgreeInNumber() throws {
        let url = server.url("/a.png")
        let prefetch = try CLI.run(["prefetch"], cacheDir: cache.path, stdin: Array("\(url)\n\(url)\n".utf8))
        #expect(
            prefetch.stderr
                == "2 URLs (1 distinct): 1 downloaded, 1 already cached, 0 revalidated, 0 failed, 0 skipped\n")
        let clean = try run("clean", "--dry-run", "--max-size", "1")
        #expect(
            clean.stdoutText.hasPrefix("Would remove 1 entry (0 unused too long, 1 over the size limit)"),
            "\(clean.stdoutText)")
        #expect(clean.stdoutText.contains("; 0 failed-URL records, 0 stray files. "), "\(clean.stdoutText)")
        #expect(!clean.stdoutText.contains("(s)"))
    }

    /// Session 16 review: `clean --max-size 0` removed every entry, where
    /// imgcache.conf's `max-size = 0` is no limit, and `--max-size none`, the
    /// file's other spelling, was refused. Both are the file's: no size limit
    /// for the run, the file's own overridden.
    @Test func cleanMaxSizeZeroOrNoneIsNoSizeLimit() throws {
        let url = server.url("/a.png")
        #expect(try run("fetch", "-o", "/dev/null", url).status == 0)
        try "max-size = 1\n".write(toFile: "\(cache.path)/imgcache.conf", atomically: true, encoding: .utf8)
        for size in ["0", "none"] {
            let clean = try run("clean", "--max-size", size)
            #expect(clean.status == 0, "\(size): \(clean.stderr)")
            #expect(clean.stdoutText.hasPrefix("Removed 0 entries"), "\(size): \(clean.stdoutText)")
        }
        #expect(try run("stat", "-q", url).status == 0)
        let byTheFile = try run("clean", "--dry-run")
        #expect(byTheFile.stdoutText.hasPrefix("Would remove 1 entry"), "\(byTheFile.stdoutText)")
    }

    // 12.

    @Test func aFailureIsRememberedForTheRequestThatFailed() throws {
        server.route("/private.png") { request in
            request.header("Authorization") == "Basic " + Data("user:secret".utf8).base64EncodedString()
                ? .ok(Fixtures.tinyPNG) : .status(401, headers: ["WWW-Authenticate": "Basic realm=\"x\""])
        }
        let url = server.url("/private.png")
        #expect(try run("fetch", "-o", "/dev/null", url).status == 4)
        #expect(try run("fetch", "-o", "/dev/null", url).status == 6)
        #expect(server.requestCount(for: "/private.png") == 1)
        let withCredentials = try run("fetch", "-u", "user:secret", "-o", "/dev/null", url)
        #expect(withCredentials.status == 0, "\(withCredentials.stderr)")
        #expect(server.requestCount(for: "/private.png") == 2)
        // Wrong credentials fail for themselves, and are remembered for themselves.
        #expect(try run("fetch", "-u", "user:wrong", "-o", "/dev/null", "--refresh", url).status == 4)
        #expect(try run("fetch", "-u", "user:wrong", "-o", "/dev/null", "--refresh", url).status == 6)
        #expect(try run("fetch", "-H", "X-Team: a", "-o", "/dev/null", "--refresh", url).status == 4)
        #expect(server.requestCount(for: "/private.png") == 4)
        let purged = try run("purge", "--failed", url)
        #expect(purged.stdoutLines == ["removed \(url)"])
        #expect(try run("fetch", "-u", "user:wrong", "-o", "/dev/null", "--refresh", url).status == 4)
        #expect(server.requestCount(for: "/private.png") == 5)
    }
}
