import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// The built binary against the loopback server: stdout, stderr, exit status,
/// and what reached the server.
@Suite(.serialized) struct FetchCommandTests: CommandSuite {
    let fixture: CommandFixture
    let png = Fixtures.tinyPNG

    init() throws {
        fixture = try CommandFixture()
    }

    @Test func downloadsOnceThenServesFromDisk() throws {
        server.route("/x.png", .ok(png, headers: ["Content-Type": "image/png", "Cache-Control": "max-age=60"]))
        let first = try fetch(server.url("/x.png"))
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == png)
        #expect(first.stderr.isEmpty)
        let second = try fetch("-v", server.url("/x.png"))
        #expect(second.status == 0)
        #expect(second.stdout == png)
        #expect(second.stderr.contains("served from disk"))
        #expect(server.requestCount(for: "/x.png") == 1)
    }

    @Test func aURLTooLongForItsRecordIsServedButNotStored() throws {
        server.route("/long.png", .ok(png, headers: ["Cache-Control": "max-age=60"]))
        // The record holds the URL, and ext4 keeps about 4 KB in one attribute
        // (XFS and tmpfs take more: then the entry is stored and served from disk).
        let url = server.url("/long.png") + "?" + String(repeating: "q", count: 5000)
        let first = try fetch("-v", url)
        #expect(first.status == 0 && first.stdout == png, "exit \(first.status)")
        let notStored = first.stderr.contains("not stored (its record is too large for the file system)")
        let second = try fetch("-v", url)
        #expect(second.status == 0 && second.stdout == png, "exit \(second.status)")
        #expect(second.stderr.contains("served from disk") == !notStored)
        #expect(server.requestCount(for: "/long.png") == (notStored ? 2 : 1))
        let shard = try FileManager.default.contentsOfDirectory(
            atPath: "\(cache.path)/entries/\(CacheKey(url).hash.prefix(1))")
        #expect(shard.isEmpty == notStored, "a partial entry was left: \(shard)")
    }

    @Test func aMissingImageIsNotRequestedTwice() throws {
        let first = try fetch(server.url("/missing.png"))
        #expect(first.status == 4)
        #expect(first.stdout.isEmpty)
        #expect(first.stderr == "imgcache: \(server.url("/missing.png")): HTTP 404 Not Found\n")
        let second = try fetch(server.url("/missing.png"))
        #expect(second.status == 6)
        #expect(second.stderr.hasPrefix("imgcache: \(server.url("/missing.png")): failed before (HTTP 404 Not Found"))
        #expect(server.requestCount(for: "/missing.png") == 1)
        server.route("/missing.png", .ok(png))
        let retried = try fetch("--retry-failed", server.url("/missing.png"))
        #expect(retried.status == 0)
        #expect(server.requestCount(for: "/missing.png") == 2)
        #expect(try fetch(server.url("/missing.png")).status == 0)
    }

    @Test func transientFailuresAreNotRemembered() throws {
        server.route("/busy.png", .status(503, headers: ["Retry-After": "1"]))
        #expect(try fetch("--retries", "0", server.url("/busy.png")).status == 4)
        #expect(try fetch("--retries", "0", server.url("/busy.png")).status == 4)
        #expect(server.requestCount(for: "/busy.png") == 2)
    }

    @Test func anHTMLPageIsNeverCached() throws {
        server.route("/photo.jpg", .html("<!DOCTYPE html><html><body>Sign in to continue</body></html>"))
        let result = try fetch(server.url("/photo.jpg"))
        #expect(result.status == 5)
        #expect(result.stderr == "imgcache: \(server.url("/photo.jpg")): not an image (HTML page)\n")
        #expect(try run(["stat", "-q", server.url("/photo.jpg")]).status == 7)
        let entries = FileManager.default.enumerator(atPath: "\(cache.path)/entries")?.allObjects as? [String] ?? []
        #expect(entries.filter { $0.hasSuffix(".meta") }.isEmpty)
        let temporary = try FileManager.default.contentsOfDirectory(atPath: "\(cache.path)/tmp")
        #expect(temporary.isEmpty)
    }

    @Test func networkErrorsExitThree() throws {
        // A bound socket that does not listen refuses connections, and holds
        // its port so that no other test's server takes it meanwhile.
        let (closed, port) = try LoopbackSocket.bound()
        defer { close(closed) }
        let url = "http://127.0.0.1:\(port)/x.png"
        let result = try fetch(url)
        #expect(result.status == 3)
        #expect(result.stderr.hasPrefix("imgcache: \(url): could not connect"))
    }

    @Test func offlineServesOnlyWhatIsCached() throws {
        server.route("/x.png", .ok(png))
        let miss = try fetch("--offline", server.url("/x.png"))
        #expect(miss.status == 7)
        #expect(server.requestCount == 0)
        #expect(try fetch(server.url("/x.png")).status == 0)
        let hit = try fetch("--offline", server.url("/x.png"))
        #expect(hit.status == 0 && hit.stdout == png)
    }

    @Test func severalURLsKeepInputOrderAndShareTheExitKind() throws {
        let images = (0..<5).map { index in png + Array(repeating: UInt8(index), count: index + 1) }
        for (index, image) in images.enumerated() {
            // Later URLs answer sooner, so completion order is reversed.
            server.route("/\(index).png", .trickle(image, bytesPerSecond: 2000 * (index + 1)))
        }
        let result = try run(["fetch", "--json"] + (0..<5).map { server.url("/\($0).png") })
        #expect(result.status == 0, "\(result.stderr)")
        let urls = result.stdoutLines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["url"] as? String
        }
        #expect(urls == (0..<5).map { server.url("/\($0).png") })

        server.route("/gone.png", .status(410))
        let sameKind = try fetch(server.url("/missing-a.png"), server.url("/gone.png"))
        #expect(sameKind.status == 4)
        let mixed = try fetch(server.url("/0.png"), server.url("/missing-b.png"), server.url("/page.png"))
        server.route("/page.png", .html("<html></html>"))
        #expect(mixed.status == 4)
        let mixedKinds = try fetch(server.url("/missing-c.png"), server.url("/page.png"))
        #expect(mixedKinds.status == 1)
        #expect(mixedKinds.stderr.split(separator: "\n").count == 2)
    }

    @Test func jsonRecordsDescribeEachImage() throws {
        server.route("/x.png", .ok(png, headers: ["ETag": "\"abc\"", "Cache-Control": "max-age=60"]))
        let result = try fetch("--json", server.url("/x.png"), server.url("/nope.png"))
        #expect(result.status == 4)
        let records = result.stdoutLines.map {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(records.count == 2)
        let ok = try #require(records[0])
        #expect(ok["result"] as? String == "downloaded")
        #expect(ok["format"] as? String == "png")
        #expect(ok["width"] as? Int == 4 && ok["height"] as? Int == 3 && ok["frames"] as? Int == 1)
        #expect(ok["bytes"] as? Int == png.count)
        #expect(ok["etag"] as? String == "\"abc\"")
        #expect(ok["key"] as? String == CacheKey(server.url("/x.png")).hash)
        #expect((ok["expires"] as? String)?.hasSuffix("Z") == true)
        #expect(ok["duration_ms"] is Double || ok["duration_ms"] is Int)
        let path = try #require(ok["path"] as? String)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == png)
        let failed = try #require(records[1])
        #expect(failed["result"] as? String == "failed")
        let error = try #require(failed["error"] as? [String: Any])
        #expect(error["kind"] as? String == "http")
        #expect(error["message"] as? String == "HTTP 404 Not Found")
        #expect(failed["path"] == nil)
    }

    @Test func decodesPixelsPathsAndFiles() throws {
        server.route("/x.png", .ok(png))
        let pam = try fetch("--decode", "pam", server.url("/x.png"))
        #expect(pam.status == 0)
        #expect(try NetpbmImage(pam.stdout).samples == Fixtures.tinyPNGPixels)
        let ppm = try fetch("--decode", "ppm", server.url("/x.png"))
        #expect(try NetpbmImage(ppm.stdout).rgba == Fixtures.tinyPNGPixels)
        let path = try fetch("--path", server.url("/x.png"))
        let file = String(path.stdoutText.dropLast())
        #expect(file.hasPrefix(cache.path + "/entries/"))
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: file))) == png)
        let output = try TemporaryDirectory()
        let written = try fetch(
            "-o", "\(output.path)/a.png", "--decode", "png", "-o", "\(output.path)/b.png",
            server.url("/x.png"), server.url("/x.png"))
        #expect(written.status == 0 && written.stdout.isEmpty)
        let decoded = try ImageDecoder().decode(
            [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(output.path)/b.png"))), frame: nil)
        #expect(decoded.frames[0].pixels == Fixtures.tinyPNGPixels)
        let directory = try fetch("--output-dir", output.path, server.url("/x.png"))
        #expect(directory.status == 0)
        // Named after the URL's last segment since issue 26 (was the key's hash).
        #expect(FileManager.default.fileExists(atPath: "\(output.path)/x.png"))
        #expect(directory.stdoutText == "\(server.url("/x.png"))\t\(output.path)/x.png\n")
        #expect(server.requestCount(for: "/x.png") == 1)
    }

    @Test func thumbnailsAreMadeFromTheCachedOriginal() throws {
        let jpeg = try Fixtures.bytes("baseline.jpg")
        server.route("/photo.jpg", .ok(jpeg))
        let original = try ImageDecoder().inspect(jpeg)
        let thumbnail = try fetch("--thumbnail", "8x8", server.url("/photo.jpg"))
        #expect(thumbnail.status == 0, "\(thumbnail.stderr)")
        let info = try ImageDecoder().inspect(thumbnail.stdout)
        #expect(info.format == .jpeg)
        #expect(max(info.width, info.height) == 8 && info.width * original.height / original.width == info.height)
        let webp = try fetch("--max-pixels", "20", "--encode", "webp", server.url("/photo.jpg"))
        let small = try ImageDecoder().inspect(webp.stdout)
        #expect(small.format == .webp && small.width * small.height <= 20)
        let pixels = try fetch("--thumbnail", "4x4", "--decode", "pam", server.url("/photo.jpg"))
        #expect(try NetpbmImage(pixels.stdout).width <= 4)
        #expect(server.requestCount(for: "/photo.jpg") == 1)
        #expect(try fetch("--thumbnail", "4", server.url("/photo.jpg")).status == 64)
        #expect(try fetch("--encode", "png", "--decode", "pam", server.url("/photo.jpg")).status == 64)
    }

    @Test func limitFlagsAreExactAtTheirBoundaries() throws {
        let jpeg = try Fixtures.bytes("baseline.jpg"), gif = try Fixtures.bytes("anim3.gif")
        let info = try ImageDecoder().inspect(jpeg), animation = try ImageDecoder().inspect(gif)
        for path in ["/at.jpg", "/past.jpg"] { server.route(path, .ok(jpeg)) }
        for path in ["/at.gif", "/past.gif"] { server.route(path, .ok(gif)) }
        let pixels = info.width * info.height
        #expect(try fetch("--limit-pixels", "\(pixels)", server.url("/at.jpg")).status == 0)
        let past = try fetch("--limit-pixels", "\(pixels - 1)", server.url("/past.jpg"))
        #expect(past.status == 5)
        #expect(past.stderr.contains("exceeds the limit of \(pixels - 1)"))
        #expect(try fetch("--limit-frames", "\(animation.frameCount)", server.url("/at.gif")).status == 0)
        #expect(try fetch("--limit-frames", "\(animation.frameCount - 1)", server.url("/past.gif")).status == 5)
        #expect(try fetch("--limit-pixels", "0", server.url("/at.jpg")).status == 64)
    }

    @Test func aDamagedEntryIsRefetchedNotServed() throws {
        server.route("/x.png", .ok(png))
        let path = String(try fetch("--path", server.url("/x.png")).stdoutText.dropLast())
        var damaged = png
        damaged[60] ^= 0xFF
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        let result = try fetch("-v", server.url("/x.png"))
        #expect(result.status == 0)
        #expect(result.stdout == png)
        #expect(result.stderr.contains("discarded corrupt entry"))
        #expect(server.requestCount(for: "/x.png") == 2)
    }

    @Test func noStoreLeavesTheDiskCacheEmpty() throws {
        server.route("/x.png", .ok(png))
        #expect(try fetch("--no-store", server.url("/x.png")).stdout == png)
        #expect(try run(["stat", "-q", server.url("/x.png")]).status == 7)
    }

    @Test func badArgumentsExitSixtyFour() throws {
        #expect(try fetch("ftp://127.0.0.1/x.png").status == 64)
        #expect(try fetch("-o", "a", "-o", "b", server.url("/x.png")).status == 64)
        #expect(try fetch("--json", "--path", server.url("/x.png")).status == 64)
        #expect(try fetch("--max-bytes", "lots", server.url("/x.png")).status == 64)
        #expect(try run(["clean", "--max-age", "soon"]).status == 64)
        #expect(server.requestCount == 0)
    }

    @Test func aBodyOverTheLimitIsRejected() throws {
        server.route("/big.png", .ok(png + Array(repeating: 0, count: 4096)))
        let result = try fetch("--max-bytes", "1K", server.url("/big.png"))
        #expect(result.status == 5)
        #expect(result.stderr.contains("body"))
    }

    @Test func redirectsAreFollowedOnlyToHTTP() throws {
        server.route("/x.png", .ok(png))
        server.route("/old.png", .redirect(to: "/x.png", status: 301))
        server.route("/evil.png", .redirect(to: "file:///etc/passwd"))
        server.route("/loop.png", .redirect(to: "/loop.png"))
        #expect(try fetch(server.url("/old.png")).stdout == png)
        let evil = try fetch(server.url("/evil.png"))
        #expect(evil.status == 4)
        #expect(evil.stdout.isEmpty)
        #expect(try fetch("--max-redirects", "3", server.url("/loop.png")).status == 4)
        #expect(server.requestCount(for: "/loop.png") == 4)
    }
}
