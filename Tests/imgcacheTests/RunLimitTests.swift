import Foundation
import TestSupport
import Testing

/// Issue 26, findings 2 and 3: a limit belongs to the run that gave it. A
/// stricter run's failure does not lock the URL out for everyone, a cached
/// entry is judged by the run's limits as a download is, and a failure
/// under the defaults is retried by a run that raises the limit.
@Suite(.serialized) struct RunLimitTests: CommandSuite {
    let fixture: CommandFixture
    let gif: [UInt8]

    init() throws {
        fixture = try CommandFixture()
        gif = try Fixtures.bytes("anim3.gif")
        server.route("/anim.gif", .ok(gif))
        server.route("/big.png", .ok(Fixtures.tinyPNG))
        server.route("/many.gif", .ok(Self.gif(frames: 1001)))
    }

    /// A 1×1 GIF of `frames` frames (one LZW-coded pixel each).
    static func gif(frames: Int) -> [UInt8] {
        var bytes = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        for _ in 0..<frames {
            bytes += [0x21, 0xF9, 4, 0, 10, 0, 0, 0]  // graphic control: 0.1 s
            bytes += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0]  // image descriptor, 1×1
            bytes += [2, 2, 0x44, 0x01, 0]  // LZW minimum code size 2, one block
        }
        return bytes + [0x3B]
    }

    @Test func aStricterRunsFailureIsNotRemembered() throws {
        let url = server.url("/anim.gif")
        let strict = try fetch("--limit-frames", "2", "-o", "/dev/null", url)
        #expect(strict.status == 5, "\(strict.stderr)")
        #expect(strict.stderr == "imgcache: \(url): too many frames: 3 exceeds the limit of 2\n")
        let plain = try fetch("-o", "/dev/null", url)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(server.requestCount(for: "/anim.gif") == 2)

        let png = server.url("/big.png")
        #expect(try fetch("--max-bytes", "100", "-o", "/dev/null", png).status == 5)
        let after = try fetch("-o", "/dev/null", png)
        #expect(after.status == 0, "\(after.stderr)")
        #expect(try run("stat", "--json").stdoutText.contains("\"failed_urls\":0"))
    }

    @Test func aCachedEntryIsJudgedByTheRunsLimitsAndStays() throws {
        let url = server.url("/anim.gif")
        #expect(try fetch("-o", "/dev/null", url).status == 0)
        for arguments in [
            ["--limit-frames", "2"], ["--limit-pixels", "10"], ["--max-bytes", "100"],
            ["--limit-total-pixels", "100"],
        ] {
            let result = try run(["fetch", "-o", "/dev/null"] + arguments + [url])
            #expect(result.status == 5, "\(arguments): \(result.stderr)")
        }
        let prefetch = try run(["prefetch", "--limit-frames", "2"], stdin: Array("\(url)\n".utf8))
        #expect(prefetch.status == 5, "\(prefetch.stderr)")
        #expect(try run("stat", "-q", url).status == 0, "the entry was removed")
        #expect(try fetch("-o", "/dev/null", url).status == 0)
        #expect(server.requestCount(for: "/anim.gif") == 1)
    }

    @Test func aFailureUnderTheDefaultsIsRetriedByAHigherLimit() throws {
        let url = server.url("/many.gif")
        let first = try fetch("-o", "/dev/null", url)
        #expect(first.status == 5, "\(first.stderr)")
        let again = try fetch("-o", "/dev/null", url)
        #expect(again.status == 6)
        #expect(
            again.stderr.contains("use --retry-failed or a --limit-frames above 1000 to try again"), "\(again.stderr)")
        #expect(server.requestCount(for: "/many.gif") == 1)
        let stat = try run("stat", "--json", url).stdoutText
        #expect(stat.contains("\"limit\":\"limit-frames\",\"limit_value\":1000"), "\(stat)")
        let higher = try fetch("--limit-frames", "2000", "-o", "/dev/null", url)
        #expect(higher.status == 0, "\(higher.stderr)")
        #expect(server.requestCount(for: "/many.gif") == 2)
        // Stored by the looser run; a plain run (the warm hit's path) is still over the default.
        let plain = try fetch("-o", "/dev/null", url)
        #expect(plain.status == 5, "\(plain.stderr)")
        #expect(plain.stderr == "imgcache: \(url): too many frames: 1001 exceeds the limit of 1000\n")
        #expect(try fetch("--limit-frames", "1001", "-o", "/dev/null", url).status == 0)
        #expect(server.requestCount(for: "/many.gif") == 2)
    }

    @Test func aLimitOfZeroIsAUsageError() throws {
        for option in ["--max-bytes", "--limit-frames", "--limit-pixels", "--limit-total-pixels", "--limit-scans"] {
            let result = try fetch(option, "0", server.url("/anim.gif"))
            #expect(result.status == 64, "\(option): \(result.stderr)")
        }
        #expect(server.requestCount(for: "/anim.gif") == 0)
    }
}
