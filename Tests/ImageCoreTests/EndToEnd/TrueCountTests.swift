import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// Issue 35, class 3: every count a run prints is true. A summary after
/// Ctrl-C counts the URLs tried, not the list; the same URL under other
/// `#fragments` is one key; `clean -v` names what it removed by URL; an
/// empty partial body left by a killed run is a stray `clean` removes.
@Suite(.serialized) struct TrueCountTests: CommandSuite {
    let fixture: CommandFixture

    init() throws {
        fixture = try CommandFixture()
        server.route("/a.png", .ok(Fixtures.tinyPNG))
    }

    @Test func repeatsUnderOtherFragmentsAreOneKey() throws {
        let url = server.url("/a.png")
        let list = ["\(url)#one", "\(url)#two", url, server.url("/A/../a.png")].joined(separator: "\n")
        let result = try run(["prefetch"], stdin: Array(list.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.hasSuffix(
                "4 URLs (1 distinct): 1 downloaded, 3 already cached, 0 revalidated, 0 failed, 0 skipped\n"),
            "\(result.stderr)")
        #expect(server.requestCount(for: "/a.png") == 1)
    }

    @Test func cleanVerboseNamesEvictedEntriesByURL() throws {
        let url = server.url("/a.png")
        #expect(try fetch("-o", "/dev/null", url).status == 0)
        let result = try run("clean", "-v", "--max-size", "1")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("imgcache: evicted \(url) (cache over 1 B)"), "\(result.stderr)")
    }

    @Test func emptyPartialBodiesAreStraysCleanRemoves() throws {
        let url = server.url("/a.png")
        let path = try fetch("--path", url).stdoutText.trimmingCharacters(in: .newlines)
        let shard = (path as NSString).deletingLastPathComponent
        let hash = String((path as NSString).lastPathComponent.prefix(64))
        // What a run killed (SIGPIPE, kill -9) before the first byte of another download leaves.
        let partial = "\(shard)/\(String(hash.reversed())).partial"
        #expect(FileManager.default.createFile(atPath: partial, contents: Data()))
        func strays(_ arguments: String...) throws -> Int? {
            let report = try JSONSerialization.jsonObject(with: Data(run(["clean", "--json"] + arguments).stdout))
            return (report as? [String: Any])?["stray_files_removed"] as? Int
        }
        #expect(try strays("--dry-run") == 1)
        #expect(FileManager.default.fileExists(atPath: partial), "a dry run removes nothing")
        // One a download is writing (it holds the body's lock) stays.
        let writer = try #require(try OpenFile.locked(partial, waiting: false))
        #expect(try strays() == 0)
        #expect(FileManager.default.fileExists(atPath: partial))
        writer.close()
        let cleaned = try run("clean")
        #expect(cleaned.status == 0, "\(cleaned.stderr)")
        #expect(!FileManager.default.fileExists(atPath: partial))
        #expect(try fetch("--offline", url).stdout == Fixtures.tinyPNG, "the entry itself stays")
    }

    @Test func anInterruptedPrefetchCountsOnlyTheURLsItTried() async throws {
        let paths = (0..<12).map { "/stall\($0).png" }
        // Stalled until the server stops, with no stall timeout: the state
        // holds however late this test's task runs again to interrupt it.
        for path in paths { server.route(path, .stall(seconds: 3600)) }
        defer { server.stop() }
        let list = try TemporaryDirectory()
        let listPath = "\(list.path)/urls.txt"
        try Data(paths.map(server.url).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: listPath))
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["prefetch", "-j", "6", "--timeout", "3600", listPath]
        process.environment = ProcessInfo.processInfo.environment.merging(["IMGCACHE_DIR": cache.path]) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        #expect(await waitUntil { server.requestCount >= 6 })
        kill(process.processIdentifier, SIGINT)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130, "\(stderr)")
        // Six slots and four queued loads were busy; the rest of the list was never read.
        let summary = try #require(stderr.split(separator: "\n").last.map(String.init))
        let tried = try #require(Int(summary.prefix { $0.isNumber }), "\(summary)")
        #expect((6..<12).contains(tried), "\(summary)")
        #expect(
            summary == "\(tried) URLs before the interruption: 0 downloaded, 0 already cached, 0 revalidated, "
                + "0 failed, 0 skipped, \(tried) interrupted; the rest of the list was not read")
    }
}
