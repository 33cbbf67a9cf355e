import ArgumentParser
import Foundation
import ImageCore
import TestSupport
import Testing

@testable import imgcache

/// Which `fetch` command lines are read without the argument parser
/// (`FetchPlan`), that the parser reads each of them to the same plan, with
/// every download option the plan does not hold at its default, and that
/// the plan refuses every line the parser refuses (whose usage error, exit
/// 64, is then the parser's): the same run follows either way.
@Suite(.serialized) struct FetchPlanTests: CommandSuite {
    let fixture: CommandFixture
    static let url = "http://127.0.0.1:9/a.png"

    init() throws {
        fixture = try CommandFixture()
        server.route("/anim.gif", .ok(try Fixtures.bytes("anim3.gif")))
    }

    /// The command the parser makes of `arguments`, as `runCommandLine` makes it.
    static func parsed(_ arguments: [String]) throws -> IMGCacheCommand.Fetch {
        let words = ArgumentNormalizer.normalize(arguments, subcommands: IMGCacheCommand.subcommandNames)
        let command = try IMGCacheCommand.parseAsRoot(words)
        return try #require(command as? IMGCacheCommand.Fetch)
    }

    /// Checks that the parser reads `arguments`, which the plan read, to the same plan and requests.
    static func expectTheParsersReading(_ plan: FetchPlan, _ arguments: [String]) throws {
        let command = try parsed(arguments)
        #expect(plan == command.plan, "\(arguments)")
        // What the plan's run assumes of the options it does not read.
        #expect(command.global.remote.remoteStorage == nil, "\(arguments)")
        let parsedRequest = command.plan.request(for: "u", download: command.download)
        #expect("\(plan.request(for: "u", download: nil))" == "\(parsedRequest)", "\(arguments)")
        let untouched = ImageManager.Configuration(directory: CacheDirectory(root: "/c"))
        var configuration = untouched
        command.download.apply(to: &configuration)
        #expect(configuration.keyPolicy == untouched.keyPolicy && configuration.limits == untouched.limits)
        #expect(configuration.cookieJar == nil && configuration.maxConnectionsPerHost == nil)
        #expect(configuration.maxBytesPerSecond == nil && configuration.requestRate == nil)
    }

    @Test func eachLineThePlanReadsTheParserReadsTheSame() throws {
        let url = Self.url
        let taken: [[String]] = [
            ["fetch", url], ["fetch", "-o", "out.png", url], ["fetch", "--offline", "-q", "-oout", url],
            ["--cache-dir", "/c", "-v", "fetch", "--no-progress", "--thumbnail", "64x64", "-o", "t.gif", url],
            ["fetch", "--offline", "--thumbnail=64X64", "--quality", "80", "--encode", "webp", "-o", "-", url],
            ["fetch", "--json", "--placeholder", url, url], ["fetch", "--path", "--cache-dir=/c", url],
            ["fetch", "--decode", "ppm", "--frame", "2", "--no-orient", "--colorspace", "original", url],
            ["fetch", "--max-pixels", "+4096", "--decode", "png", "-o", "p.png", url],
            ["fetch", "--encode", "jxl", "--output-dir", "d", url, url], ["fetch", "--no-store", "--progress", url],
            ["-q", "fetch", "--no-remote-storage", "--encode=avif", "--quality=1", "-o", "a.avif", url],
            ["fetch", "--thumbnail", "8x8", "--decode", "pam", url],
            ["fetch", "-o", "-", url], ["fetch", "--retries", "0", "--timeout", "2.5", "-k", "--stale-if-error", url],
            ["fetch", "--connect-timeout=1e1", "--max-time", "inf", "--retries=+10", "--offline", url],
            // Session 16 review: times as imgcache.conf writes them (`timeout = 30s`)
            // were "the value '30s' is invalid for '--timeout <sec>'".
            ["fetch", "--timeout", "30s", "--connect-timeout=2m", "--max-time", "1h", "-o", "-", url],
            // -o once per URL, wherever it stands and however it is spelt.
            ["fetch", "-o", "a", "-o", "b", url, url], ["fetch", "-o", "a", url, "--output=-", url, "-oc", url, "-q"],
            ["fetch", url, "--output", "a", "-o", "b", url, "--decode", "ppm", "--no-progress"],
        ]
        for arguments in taken {
            let plan = try #require(FetchPlan(arguments: arguments), "\(arguments)")
            try Self.expectTheParsersReading(plan, arguments)
        }
    }

    @Test func everythingElseIsLeftToTheParser() {
        let url = Self.url
        let refused: [[String]] = [
            [], ["fetch"], ["prefetch"], ["stat", url], ["help", "fetch"], ["fetch", "--help"], ["fetch", "--", url],
            ["fetch", "-o", "a", "-o", "b", "-H", "A: b", url, url], ["fetch", "--max-redirects", "2", url],
            ["fetch", "-H", "A: b", url],
            ["fetch", "--remote-storage", "redis://h", url], ["fetch", "--refresh", url], ["fetch", "-qv", url],
            ["fetch", "-o", "-junk", url], ["fetch", "--frame", "-1", "--decode", "ppm", url],
            ["fetch", "--progress", "--no-progress", url], ["fetch", "--offline=1", url], ["fetch", "-o"],
        ]
        for arguments in refused { #expect(FetchPlan(arguments: arguments) == nil, "\(arguments)") }
    }

    /// Lines in the plan's own words that the parser refuses: the plan refuses them too.
    @Test func theParserRefusesWhatThePlanRefusesAsInvalid() {
        let url = Self.url
        let invalid: [[String]] = [
            ["fetch", "-q", "-v", url], ["fetch", "-q", "--progress", url], ["fetch", "--cache-dir", "", url],
            ["fetch", "ftp://x/a.png"], ["fetch", "-o", "a", url, url], ["fetch", "-o", "a", "--output-dir", "d", url],
            ["fetch", "--json", "--path", url], ["fetch", "--json", "-o", "a", url], ["fetch", "--frame", "1", url],
            ["fetch", "--path", "--no-store", url], ["fetch", "--thumbnail", "64", url],
            ["fetch", "--thumbnail", "0x9", url], ["fetch", "--max-pixels", "0", url],
            ["fetch", "--thumbnail", "9x9", "--max-pixels", "9", url],
            ["fetch", "--encode", "png", "--decode", "pam", url],
            ["fetch", "--quality", "101", "--encode", "jpeg", url], ["fetch", "--quality", "80", url],
            ["fetch", "--quality", "80", "--encode", "gif", url], ["fetch", "--placeholder", url],
            ["fetch", "--no-orient", url], ["fetch", "--colorspace", "srgb", url], ["fetch", "--decode", "bmp", url],
            ["fetch", "--encode", "tiff", url], ["fetch", "--colorspace", "p3", "--decode", "ppm", url],
            ["fetch", "--frame", "x", "--decode", "ppm", url], ["fetch", "--max-pixels", "1e6", url],
            ["fetch", "--path", "--thumbnail", "9x9", url], ["fetch", "--cache-dir", "--json", url],
            ["fetch", "--decode", "ppm", "--json", url], ["fetch", "--timeout", "0", url],
            ["fetch", "--timeout", "nan", url], ["fetch", "--max-time", "x", url], ["fetch", "--retries", "11", url],
            ["fetch", "--offline", "-k", url], ["fetch", "--offline", "--stale-if-error", url],
            ["fetch", "-o", "a", "-o", "b", url], ["fetch", "-o", "a", "-o", "b", "-o", "c", url, url],
            ["fetch", "-o", "a", "--output-dir", "d", "-o", "b", url, url],
            ["fetch", "--json", "-o", "a", "-o", "b", url, url],
        ]
        for arguments in invalid {
            #expect(FetchPlan(arguments: arguments) == nil, "\(arguments)")
            #expect(throws: (any Error).self, "\(arguments)") { try Self.parsed(arguments) }
        }
    }

    /// A file per URL for many URLs (`fetch -o F1 URL1 -o F2 URL2 …`) is the
    /// plan's to read, in one pass (the parser's work grew with the square
    /// of the pairs: 13.7 G instructions for 4 000): each `-o` read, in order.
    @Test func manyOutputPairsAreThePlans() throws {
        func pairs(_ count: Int) -> [String] {
            (0..<count).flatMap { ["-o", "f\($0)", "http://127.0.0.1:9/\($0).png"] }
        }
        let many = try #require(FetchPlan(arguments: ["fetch", "--offline"] + pairs(4000)))
        #expect(many.output == (0..<4000).map { "f\($0)" })
        #expect(many.urls == (0..<4000).map { "http://127.0.0.1:9/\($0).png" })
        // The parser reads a shorter line of them the same.
        let some = ["fetch", "--offline"] + pairs(50)
        try Self.expectTheParsersReading(try #require(FetchPlan(arguments: some)), some)
    }

    /// Lines made of pieces from the plan's table, as a seeded generator
    /// strings them: each the plan reads, the parser reads to the same plan.
    /// (A line the plan refuses goes to the parser whatever it is; only the
    /// read ones are parsed here, each parse a tenth of a second in a debug build.)
    @Test func combinedLinesReadAlike() throws {
        let pieces: [[String]] = [
            ["-q"], ["-v"], ["--json"], ["--progress"], ["--no-progress"], ["--offline"], ["--placeholder"],
            ["--no-store"], ["-o", "f"], ["--output-dir", "d"], ["--decode", "ppm"], ["--frame", "0"],
            ["--thumbnail", "9x9"], ["--max-pixels", "81"], ["--encode", "webp"], ["--quality", "50"],
            ["--colorspace", "srgb"], ["--no-orient"], ["--path"], ["--cache-dir", "/c"], ["--no-remote-storage"],
            ["--retries", "3"], ["--timeout", "5"], ["--connect-timeout", "0"], ["--max-time", "1"], ["-k"],
            ["--stale-if-error"],
        ]
        var generator = SplitMix(seed: 34)
        var (read, refused) = (0, 0)
        for _ in 0..<300 {
            let count = Int(generator.next() % 5)
            var line: [String] = []
            for _ in 0..<count { line += pieces[Int(generator.next() % UInt64(pieces.count))] }
            let arguments = ["fetch"] + line + [Self.url]
            guard let plan = FetchPlan(arguments: arguments) else {
                refused += 1
                continue
            }
            read += 1
            try Self.expectTheParsersReading(plan, arguments)
        }
        // Both kinds were tried.
        #expect(read > 40 && refused > 100, "\(read) read, \(refused) refused")
    }

    /// The same line run through the plan and through the parser (a download
    /// option the plan does not read, at its default, sends it there): the same bytes, messages and
    /// exit status, a thumbnail from the cache and an offline miss alike.
    @Test func aPlannedRunIsTheParsedRun() throws {
        let url = server.url("/anim.gif")
        #expect(try fetch("-q", "-o", "/dev/null", url).status == 0)
        let lines: [[String]] = [
            ["--offline", "--thumbnail", "2x2", url], ["--offline", "--encode", "png", "--frame", "1", url],
            ["--json", "--offline", url], ["--offline", server.url("/absent.gif")],
            ["--offline", "--path", url], ["-v", "--offline", "--decode", "ppm", url],
            // The warm hit's lines.
            ["--path", url], ["-v", "--path", url], ["-o", "-", url], ["--offline", "-o", "-", url],
            ["--retries", "0", "--timeout", "3", "-k", "-o", "-", url],
        ]
        for line in lines {
            #expect(FetchPlan(arguments: ["fetch"] + line) != nil, "\(line)")
            let planned = try fetch(line)
            let parsed = try fetch(["--max-redirects", "\(Defaults.maxRedirects)"] + line)
            #expect(planned.status == parsed.status, "\(line): \(planned.stderr)")
            #expect(planned.stderr == parsed.stderr, "\(line)")
            // A JSON record's duration is the run's own.
            let time = /"duration_ms":[0-9.]+/
            let (plannedOut, parsedOut) = (planned.stdoutText, parsed.stdoutText)
            #expect(plannedOut.replacing(time, with: "") == parsedOut.replacing(time, with: ""), "\(line)")
            #expect(line.contains("--json") || planned.stdout == parsed.stdout, "\(line)")
        }
        #expect(try fetch(["--offline", server.url("/absent.gif")]).status == 7)
        #expect(server.requestCount(for: "/anim.gif") == 1)
    }
}

extension FetchPlanTests {
    /// The parser refuses a bad `$IMGCACHE_REMOTE_STORAGE` whatever the line
    /// says; so do the plan and the warm hit, whose answer it would have been.
    @Test func aBadRemoteStorageVariableIsTheParsersUsageError() throws {
        let url = server.url("/anim.gif")
        #expect(try fetch("-q", "-o", "/dev/null", url).status == 0)
        for line in [["-o", "/dev/null", url], ["--offline", "--thumbnail", "2x2", "-o", "/dev/null", url]] {
            let result = try run(["fetch"] + line, environment: ["IMGCACHE_REMOTE_STORAGE": "gopher://x"])
            #expect(result.status == 64, "\(line): \(result.stderr)")
            #expect(result.stderr.hasPrefix("imgcache: fetch: IMGCACHE_REMOTE_STORAGE: "), "\(result.stderr)")
        }
    }

    /// `--no-remote-storage` (and `--remote-storage`, which replaces it) is how
    /// a user works around a bad `$IMGCACHE_REMOTE_STORAGE` for one run.
    @Test func aFlagOverridesABadRemoteStorageVariable() throws {
        let url = server.url("/anim.gif")
        let bad = ["IMGCACHE_REMOTE_STORAGE": "gopher://x"]
        for line in [["--no-remote-storage", "-o", "/dev/null", url], ["--no-remote-storage", "--json", url]] {
            let result = try run(["fetch"] + line, environment: bad)
            #expect(result.status == 0, "\(line): \(result.stderr)")
        }
        let prefetch = try run(
            ["prefetch", "-q", "--no-remote-storage", "-"], stdin: Array("\(url)\n".utf8), environment: bad)
        #expect(prefetch.status == 0, "\(prefetch.stderr)")
        let stat = try run(["stat", "--no-remote-storage"], environment: bad)
        #expect(stat.status == 0, "\(stat.stderr)")
    }
}

extension CommandSuite {
    fileprivate func fetch(_ arguments: [String]) throws -> CLI.Result { try run(["fetch"] + arguments) }
}
