import Foundation
import TestSupport
import Testing

/// Issue 26, finding 9 (`--output-dir`): files named after the URL, and
/// which file is which URL printed for scripts.
@Suite(.serialized) struct OutputDirectoryTests: CommandSuite {
    let fixture: CommandFixture

    init() throws {
        fixture = try CommandFixture()
        for path in [
            "/img/photo.jpg", "/other/photo.jpg", "/dir/", "/x/a%2Fb%01c.png", "/p/pic.jpeg", "/q/one.png",
            "/r/pic.jxl",
        ] {
            server.route(path, .ok(Fixtures.tinyPNG))
        }
        server.route("/long/" + String(repeating: "%C3%A9", count: 150) + ".png", .ok(Fixtures.tinyPNG))
    }

    @Test func filesAreNamedAfterTheURLWithTheKeyWhereThatFails() throws {
        let work = try TemporaryDirectory()
        let urls = [
            "/img/photo.jpg", "/other/photo.jpg", "/dir/", "/x/a%2Fb%01c.png", "/p/pic.jpeg", "/q/one.png?size=2",
            "/q/one.png?size=2",
        ].map(server.url)
        let result = try run(["fetch", "--output-dir", work.path] + urls)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutLines.map { $0.split(separator: "\t", maxSplits: 1).map(String.init) }
        #expect(lines.map(\.[0]) == urls)
        let names = lines.map { ($0[1] as NSString).lastPathComponent }
        #expect(lines.allSatisfy { $0[1].hasPrefix(work.path + "/") })
        // Two photo.jpg of different URLs, and an empty segment: the key's hash.
        for index in [0, 1, 2] {
            #expect(names[index].count == 64 + 4 && names[index].hasSuffix(".png"), "\(names[index])")
        }
        #expect(names[0] != names[1])
        #expect(names[3] == "a_b_c.png")
        #expect(names[4] == "pic.png", "the image is a PNG, whatever the URL says")
        #expect(names[5] == "one.png" && names[6] == "one.png", "the same URL twice is one file")
        for (line, name) in zip(lines, names) {
            #expect(FileManager.default.contents(atPath: line[1]) == Data(Fixtures.tinyPNG), "\(name)")
        }
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: work.path)) == Set(names))
    }

    /// A JPEG XL's extension is an image extension too: `pic.jxl` was
    /// written `pic.jxl.png` (and `pic.jxl.jxl`, `pic.jxl.ppm`).
    @Test func aJPEGXLExtensionIsReplacedByTheFormats() throws {
        let work = try TemporaryDirectory()
        let result = try run("fetch", "-q", "--output-dir", work.path, server.url("/r/pic.jxl"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path) == ["pic.png"])
    }

    @Test func aLongNameIsCutToTwoHundredBytesOnACharacterBoundary() throws {
        let work = try TemporaryDirectory()
        let url = server.url("/long/" + String(repeating: "%C3%A9", count: 150) + ".png")
        let result = try run("fetch", "-q", "--output-dir", work.path, url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "-q prints no lines")
        let names = try FileManager.default.contentsOfDirectory(atPath: work.path)
        #expect(names == [String(repeating: "é", count: 98) + ".png"], "\(names)")
        #expect(names[0].utf8.count <= 200)
    }

    @Test func jsonRecordsCarryTheFileWritten() throws {
        let work = try TemporaryDirectory()
        let url = server.url("/q/one.png")
        let result = try run("fetch", "--json", "--output-dir", work.path, url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.count == 1)
        #expect(result.stdoutText.contains("\"path\":\"\(work.path)/one.png\""), "\(result.stdoutText)")
        #expect(FileManager.default.contents(atPath: "\(work.path)/one.png") == Data(Fixtures.tinyPNG))
    }
}

/// Issue 26, finding 8, end to end: `stat`, `purge` and the failed list
/// find an entry by any spelling of its URL.
@Suite(.serialized) struct URLKeyCommandTests: CommandSuite {
    let fixture: CommandFixture

    init() throws {
        fixture = try CommandFixture()
        server.route("/caf%C3%A9.png", .ok(Fixtures.tinyPNG))
        server.route("/gone%C3%A9.png", .status(404))
    }

    @Test func everySpellingOfAURLIsOneEntry() throws {
        let port = server.url("").dropFirst("http://127.0.0.1:".count)
        let spellings = [
            server.url("/caf%C3%A9.png"), server.url("/caf%c3%a9.png"), server.url("/café.png"),
            "HTTP://127.0.0.1:\(port)/caf%c3%A9.png#top",
        ]
        #expect(try fetch("-o", "/dev/null", spellings[0]).status == 0)
        for url in spellings {
            #expect(try run("stat", "-q", url).status == 0, "\(url)")
            #expect(try fetch("-o", "/dev/null", url).status == 0, "\(url)")
        }
        #expect(server.requestCount(for: "/caf%C3%A9.png") == 1)
        #expect(try run("purge", spellings[2]).stdoutLines == ["removed \(spellings[2])"])
        #expect(try run("stat", "-q", spellings[0]).status == 7)

        #expect(try fetch("-o", "/dev/null", server.url("/gone%c3%a9.png")).status == 4)
        let failed = try run("stat", "--json", server.url("/goneé.png")).stdoutText
        #expect(failed.contains("\"failed\":{\"kind\":\"http\""), "\(failed)")
    }
}
