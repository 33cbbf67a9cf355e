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

    @Test func settingsThatWouldBeIgnoredAreUsageErrors() throws {
        let url = server.url("/a.png")
        let jar = try run("fetch", "--cookie-jar", "/nonexistent/x", "-o", "/dev/null", url)
        #expect(jar.status == 64)
        #expect(
            jar.stderr == "imgcache: fetch: --cookie-jar cannot be written (/nonexistent: No such file or directory) "
                + "(see 'imgcache help fetch')\n")
        let empty = try run("--cache-dir", "", "stat")
        #expect(empty.status == 64)
        #expect(empty.stderr == "imgcache: stat: --cache-dir must not be empty (see 'imgcache help stat')\n")
        #expect(server.requestCount(for: "/a.png") == 0)
    }

    @Test func optionsWithoutEffectInASubcommandAreRefused() throws {
        let url = server.url("/a.png")
        #expect(try run("fetch", "-o", "/dev/null", url).status == 0)
        for (arguments, name) in [(["stat", "--progress"], "stat"), (["clean", "--progress"], "clean")] {
            let result = try run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(
                result.stderr == "imgcache: \(name): --progress has no effect: there is no progress bar to show "
                    + "(see 'imgcache help \(name)')\n")
        }
        let remote = try run("purge", "--remote", url)
        #expect(remote.status == 64)
        #expect(
            remote.stderr == "imgcache: purge: --remote has no effect: no writable remote storage is configured "
                + "(see 'imgcache help purge')\n")
        #expect(try run("stat", "-q", url).status == 0, "purge --remote removed the local entry before refusing")
        let readOnly = try run("purge", "--remote", "--remote-storage", "http://127.0.0.1:9/|read-only", url)
        #expect(readOnly.status == 64, "\(readOnly.stderr)")
    }
}
