import Foundation
import TestSupport
import Testing

/// Issue 26, finding 6: `-` means stdin and stdout as in every Unix tool.
@Suite(.serialized) struct ShellHabitTests: CommandSuite {
    let fixture: CommandFixture

    init() throws {
        fixture = try CommandFixture()
        server.route("/a.png", .ok(Fixtures.tinyPNG))
    }

    @Test func dashIsStdoutForOutputAndStdinForPrefetch() throws {
        let work = try TemporaryDirectory()
        let url = server.url("/a.png")
        let prefetch = try CLI.run(
            ["-c", "cd \"$1\" && exec \"$0\" prefetch -", CLI.executable.path, work.path], cacheDir: cache.path,
            stdin: Array("\(url)\n".utf8), executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(prefetch.status == 0, "\(prefetch.stderr)")
        #expect(server.requestCount(for: "/a.png") == 1)
        // Through the full path (--refresh is not the warm hit's), then through the warm hit.
        for arguments in [["fetch", "-o", "-", "--refresh", url], ["fetch", "-o", "-", url], ["fetch", "-o-", url]] {
            let result = try CLI.run(
                ["-c", "cd \"$1\" && shift && exec \"$0\" \"$@\"", CLI.executable.path, work.path] + arguments,
                cacheDir: cache.path, executable: URL(fileURLWithPath: "/bin/sh"))
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout == Fixtures.tinyPNG, "\(arguments)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).isEmpty, "a file named - was written")
    }
}
