import Foundation
import TestSupport
import Testing

/// Issue 26, finding 1: output that cannot be written is exit 23 with one
/// line, on every output path, never exit 0 with the records lost; a closed
/// pipe stays silent (141). /dev/full answers every write with ENOSPC.
@Suite(.serialized, .enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full"))
struct WriteErrorTests: CommandSuite {
    let fixture: CommandFixture
    let full = "imgcache: write error: No space left on device\n"

    init() throws {
        fixture = try CommandFixture()
        server.route("/a.png", .ok(Fixtures.tinyPNG))
        server.route("/b.png", .ok(Fixtures.tinyPNG + [0]))
    }

    /// `imgcache arguments...` with stdout on /dev/full (through sh, which
    /// opens it); stdin as given.
    private func runIntoFull(_ arguments: [String], stdin: [UInt8] = []) throws -> CLI.Result {
        try CLI.run(
            ["-c", "exec \"$0\" \"$@\" >/dev/full", CLI.executable.path] + arguments, cacheDir: cache.path,
            stdin: stdin, executable: URL(fileURLWithPath: "/bin/sh"))
    }

    @Test func everyStdoutPathSaysWriteErrorAndExits23() throws {
        let url = server.url("/a.png")
        // A miss (the full path), then the warm hit's own path.
        for round in ["miss", "warm hit"] {
            let bytes = try runIntoFull(["fetch", url])
            #expect(bytes.status == 23, "\(round): \(bytes.stderr)")
            #expect(bytes.stderr == full, "\(round)")
        }
        let cases: [[String]] = [
            ["fetch", "--decode", "ppm", url], ["fetch", "--decode", "png", url], ["fetch", "--json", url],
            ["fetch", "--path", url], ["fetch", "-o", "-", url], ["fetch", url, server.url("/b.png")],
            ["stat"], ["stat", "--json"], ["stat", url], ["stat", "--json", url],
            ["clean"], ["clean", "--json"], ["clean", "--dry-run"],
        ]
        for arguments in cases {
            let result = try runIntoFull(arguments)
            #expect(result.status == 23, "\(arguments): \(result.stderr)")
            #expect(result.stderr == full, "\(arguments)")
        }
        let prefetch = try runIntoFull(["prefetch", "-q", "--json"], stdin: Array("\(url)\n".utf8))
        #expect(prefetch.status == 23, "\(prefetch.stderr)")
        #expect(prefetch.stderr == full)
        for arguments in [["purge", url], ["purge", "--json", "--failed"], ["purge", "--json", "--all"]] {
            let result = try runIntoFull(arguments)
            #expect(result.status == 23, "\(arguments): \(result.stderr)")
            #expect(result.stderr == full, "\(arguments)")
        }
    }

    /// Issue 35, class 5: what the command line prints before any cache is
    /// opened is output too (`make install` writes completions through a redirect).
    @Test func helpVersionAndCompletionsIntoAFullDiskAreExit23() throws {
        let cases: [[String]] = [
            ["--version"], ["--help"], ["help"], ["help", "fetch"], ["fetch", "--help"], ["stat", "-h"],
            ["--generate-completion-script", "bash"], ["--generate-completion-script", "zsh"],
            ["--generate-completion-script", "fish"],
        ]
        for arguments in cases {
            let result = try runIntoFull(arguments)
            #expect(result.status == 23, "\(arguments): \(result.stderr)")
            #expect(result.stderr == full, "\(arguments)")
        }
    }

    @Test func anOutputDirectoryThatIsAFileIsExit23() throws {
        let work = try TemporaryDirectory()
        let file = "\(work.path)/taken"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let result = try run("fetch", "--output-dir", file, server.url("/a.png"))
        #expect(result.status == 23, "\(result.stderr)")
        #expect(result.stderr == "imgcache: cannot use directory \(file): Not a directory\n")
        #expect(server.requestCount == 0, "nothing is fetched for output that cannot be written")
    }

    @Test func aStatusOfItsOwnCombinesWithTheWriteError() throws {
        // stat of a URL not cached is 7; with stdout lost too, two kinds: 1.
        let result = try runIntoFull(["stat", server.url("/missing.png")])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr == full)
    }

    @Test func outputFilesThatCannotBeWrittenAreExit23() throws {
        let url = server.url("/a.png")
        let device = try run("fetch", "-o", "/dev/full", url)
        #expect(device.status == 23, "\(device.stderr)")
        #expect(device.stderr == "imgcache: \(url): write error: /dev/full: No space left on device\n")
        // Warm: the same through the warm hit's path.
        let warm = try run("fetch", "-o", "/dev/full", url)
        #expect(warm.status == 23)
        #expect(warm.stderr == device.stderr)
        let streamed = try run("fetch", "--decode", "pam", "-o", "/dev/full", url)
        #expect(streamed.status == 23, "\(streamed.stderr)")

        // --output-dir on a file system that refuses the write: `ulimit -f 0`
        // makes every write to a regular file EFBIG (the entry is already cached).
        // Not under ThreadSanitizer, whose runtime dies of SIGBUS under
        // `ulimit -f` (as in FaultTests): `make sanitize` runs in CI.
        guard ProcessInfo.processInfo.environment["IMGCACHE_TEST_SANITIZER"] != "thread" else { return }
        let work = try TemporaryDirectory()
        let limited = try CLI.run(
            ["-c", "ulimit -f 0; exec \"$0\" \"$@\"", CLI.executable.path, "fetch", "--output-dir", work.path, url],
            cacheDir: cache.path, executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(limited.status == 23, "\(limited.stderr)")
        #expect(limited.stderr.hasPrefix("imgcache: \(url): write error: \(work.path)/"), "\(limited.stderr)")
        #expect(limited.stderr.hasSuffix(": File too large\n"), "\(limited.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).isEmpty, "a partial file was left")
    }

    @Test func aClosedPipeIsSilentWith141EvenWhenSIGPIPEIsIgnored() throws {
        let url = server.url("/a.png")
        #expect(try run("fetch", "-o", "/dev/null", url).status == 0)
        for arguments in [["fetch", url], ["fetch", "--json", url], ["stat"], ["fetch", "--decode", "ppm", url]] {
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            close(ends[0])
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            // With SIGPIPE ignored, as a parent may leave it, a write gets EPIPE.
            process.arguments =
                ["-c", "trap '' PIPE; \"$0\" \"$@\"; echo \"exit=$?\" >&2", CLI.executable.path] + arguments
            process.environment = ProcessInfo.processInfo.environment.merging(["IMGCACHE_DIR": cache.path]) { $1 }
            process.standardOutput = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(stderr == "exit=141\n", "\(arguments)")
        }
    }
}
