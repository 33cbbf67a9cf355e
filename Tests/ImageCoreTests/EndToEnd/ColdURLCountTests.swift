import Foundation
import TestSupport
import Testing

/// What a cold URL costs in file-system calls, counted by `strace -f -c`: a
/// count, the same on every machine and under any load. docs/ARCHITECTURE.md
/// ("One cold URL's system calls") says what each call buys; a call added to
/// the cold path must be added there, and this test's table with it.
/// strace, if it is installed and may trace here (a container may forbid ptrace).
private let strace: String? = {
    guard let path = ["/usr/bin/strace", "/bin/strace"].first(where: FileManager.default.isExecutableFile)
    else { return nil }
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: path)
    probe.arguments = ["-f", "-o", "/dev/null", "/bin/true"]
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { return nil }
    probe.waitUntilExit()
    return probe.terminationStatus == 0 ? path : nil
}()

/// Not under a sanitizer (`make sanitize` sets `IMGCACHE_TEST_SANITIZER`):
/// the counts are the plain build's, and LeakSanitizer, which stops the
/// process's threads with ptrace, ends with a fatal error under strace.
private let sanitized = ProcessInfo.processInfo.environment["IMGCACHE_TEST_SANITIZER"] != nil

@Suite(
    .serialized, .enabled(if: strace != nil, "needs strace, allowed to trace (ptrace)"),
    .enabled(if: !sanitized, "counts the plain build's calls; LeakSanitizer cannot run under strace"))
struct ColdURLCountTests {
    let server: TestHTTPServer
    let work: TemporaryDirectory

    init() throws {
        server = try TestHTTPServer()
        work = try TemporaryDirectory()
    }

    /// Calls and failures per system call of one cold `prefetch -j4` of
    /// `count` URLs, every thread counted; "fcntl-lock" counts the record
    /// locks alone (`F_SETLK`), apart from libcurl's `fcntl`s on each new
    /// connection's socket, which depend on how many it opens.
    func counts(prefetching count: Int, from first: Int) throws -> [String: (calls: Int, failed: Int)] {
        let list = "\(work.path)/list-\(count).txt"
        let urls = (first..<first + count).map { server.url("/cold/\($0).png") }
        try (urls.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let output = "\(work.path)/strace-\(count).txt"
        let cache = "\(work.path)/cache-\(count)"
        // -C: the trace, then the summary, in one file.
        let result = try CLI.run(
            ["-f", "-C", "-o", output, CLI.executable.path, "prefetch", "-q", "-j4", "--cache-dir", cache, list],
            cacheDir: cache, timeout: 120, executable: URL(fileURLWithPath: try #require(strace)))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        let summaryStart = try #require(lines.firstIndex { $0.hasPrefix("% time") })
        // "% time  seconds  usecs/call  calls  [errors]  syscall"; errors is blank when there were none.
        var table: [String: (calls: Int, failed: Int)] = [:]
        for line in lines[summaryStart...] {
            let fields = line.split(separator: " ")
            guard fields.count >= 5, let name = fields.last, name != "total", let calls = Int(fields[3]) else {
                continue
            }
            table[String(name)] = (calls, fields.count >= 6 ? Int(fields[4]) ?? 0 : 0)
        }
        let locks = lines[..<summaryStart].filter { $0.contains("fcntl(") && $0.contains("F_SETLK") }.count
        table["fcntl-lock"] = (locks, 0)
        return table
    }

    /// Per cold URL, the difference between a batch of 40 and one of 10
    /// (what a process does once, at its start and end, cancels out), each
    /// into a cache the run makes: one open that fails, the look-up under
    /// the download lock (none where the list is read: the run made the
    /// cache and knows what it stored), the body's one open, `flock` and
    /// `fstat`, its one `write` (a small image), the record's `setxattr`,
    /// the committing `rename`, the `close` that releases the body's lock,
    /// and the download lock taken and released (two `fcntl`).
    @Test func aColdURLMakesOnlyTheCallsThatBuyAtomicityAndCrashSafety() throws {
        for index in 0..<50 {
            server.route("/cold/\(index).png", .ok(Fixtures.tinyPNG, headers: ["Cache-Control": "max-age=600"]))
        }
        let small = try counts(prefetching: 10, from: 0)
        let large = try counts(prefetching: 40, from: 10)
        let records = FileManager.default.enumerator(atPath: "\(work.path)/cache-40/entries")?.allObjects as? [String]
        let inAttributes = !(records ?? []).contains { $0.hasSuffix(".meta") }
        func perURL(_ name: String) -> Double { Double((large[name]?.calls ?? 0) - (small[name]?.calls ?? 0)) / 30 }
        func failedPerURL(_ name: String) -> Double {
            Double((large[name]?.failed ?? 0) - (small[name]?.failed ?? 0)) / 30
        }
        // Bounds with a little room (a thread that starts late, a retried
        // EINTR), none for a whole extra call per URL.
        #expect(failedPerURL("openat") <= 1.1, "failing opens per cold URL")
        #expect(perURL("openat") <= 2.1)
        #expect(perURL("fcntl-lock") == 2, "the download lock: taken and released")
        #expect(perURL("flock") <= 1.1, "the body's lock")
        #expect(perURL("newfstatat") + perURL("fstat") + perURL("stat") + perURL("statx") <= 1.1, "one fstat")
        #expect(perURL("write") <= 1.1, "a small body in one write")
        #expect(perURL("rename") <= 1.1, "the commit")
        if inAttributes {
            #expect(perURL("setxattr") + perURL("fsetxattr") <= 1.1, "the record")
        }
        let fileCalls = [
            "openat", "open", "read", "write", "pread64", "pwrite64", "lseek", "fcntl-lock", "flock", "newfstatat",
            "fstat", "stat", "lstat", "statx", "rename", "renameat", "renameat2", "unlink", "unlinkat", "mkdir",
            "setxattr", "fsetxattr", "getxattr", "fgetxattr", "utimensat", "ftruncate", "fsync", "fdatasync",
        ]
        // A connection libcurl opens is closed too: those closes are not the files'.
        let total = fileCalls.map(perURL).reduce(0, +) + max(0, perURL("close") - perURL("socket"))
        // Attributes: 10 (see above). Record files: the record is a file of
        // its own, written and renamed (open, write, close, rename).
        #expect(total <= (inAttributes ? 10.3 : 14.3), "file-system calls per cold URL: \(total)")
        #expect(server.requestCount(for: "/cold/10.png") == 1)
    }
}
