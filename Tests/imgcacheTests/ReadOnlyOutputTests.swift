import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `fetch -o FILE` over a file its user may not write is refused (exit 23),
/// as the shell's `>` and curl's `-o` refuse it: the atomic replacement, a
/// rename in a writable directory, would otherwise replace a read-only file.
/// Root may write any file, so the run is made as `nobody` (setpriv).
@Suite(
    .enabled(
        if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
        "runs imgcache as another user: needs root and setpriv"))
struct ReadOnlyOutputTests: CommandSuite {
    let fixture: CommandFixture
    static let nobody: uid_t = 65534

    init() throws {
        fixture = try CommandFixture()
        server.route("/a.png", .ok(Fixtures.tinyPNG))
    }

    @Test func aFileItsUserMayNotWriteIsRefusedAndKept() throws {
        let work = try TemporaryDirectory()
        // The binary, the cache and the output's directory where nobody can reach them.
        let binary = "\(work.path)/imgcache"
        try FileManager.default.copyItem(atPath: CLI.executable.path, toPath: binary)
        let cacheDir = "\(work.path)/cache"
        let outputs = "\(work.path)/out"
        for directory in [cacheDir, outputs] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        }
        let readOnly = "\(outputs)/kept.png"
        let writable = "\(outputs)/replaced.png"
        for file in [readOnly, writable] { try Data("old".utf8).write(to: URL(fileURLWithPath: file)) }
        for path in [work.path, cacheDir, outputs, readOnly, writable] {
            #expect(chown(path, Self.nobody, gid_t(Self.nobody)) == 0, "\(path)")
        }
        chmod(readOnly, 0o444)

        func fetchAsNobody(_ output: String) throws -> CLI.Result {
            try CLI.run(
                [
                    "--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", binary, "fetch", "-o", output,
                    server.url("/a.png"),
                ],
                // No leak check: LeakSanitizer's suppressions file, in the
                // source tree, may be where nobody cannot read it.
                cacheDir: cacheDir, environment: ["HOME": work.path, "ASAN_OPTIONS": "detect_leaks=0"],
                executable: URL(fileURLWithPath: "/usr/bin/setpriv"))
        }
        let refused = try fetchAsNobody(readOnly)
        #expect(refused.status == 23, "\(refused.stderr)")
        #expect(refused.stderr == "imgcache: \(server.url("/a.png")): cannot write \(readOnly): Permission denied\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: readOnly)) == Data("old".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: outputs).sorted() == ["kept.png", "replaced.png"])
        // The same user's writable file is replaced, so the refusal is the file's mode, not the run.
        let written = try fetchAsNobody(writable)
        #expect(written.status == 0, "\(written.stderr)")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: writable))) == Fixtures.tinyPNG)
    }
}
