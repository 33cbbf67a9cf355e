import Foundation
import ImageCore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Paths that are not UTF-8 (a Latin-1 `café.png` is `caf\xE9.png`) reach
/// the file calls byte for byte, in every subcommand and through both the
/// plans and the parser: `CommandLine.arguments`' way of making a `String`
/// put U+FFFD in the byte's place, so the file was written under another
/// name. Run through `sh`, which can pass such bytes (`$E` is the byte 0xE9).
@Suite(.serialized) struct RawByteArgumentTests: CommandSuite {
    let fixture: CommandFixture
    let png = Fixtures.tinyPNG
    /// A directory of the test's own, with an ASCII path, holding what the runs make.
    let directory: TemporaryDirectory

    init() throws {
        fixture = try CommandFixture()
        directory = try TemporaryDirectory()
        server.route("/a.png", .ok(png))
        server.route("/caf%E9.png", .ok(png))
    }

    /// Runs `script` in `sh` in `directory`, with `$E` the byte 0xE9, `$IMGCACHE` the binary and `$U` the server.
    func shell(_ script: String) throws -> CLI.Result {
        try CLI.run(
            ["-c", "E=$(printf '\\351'); cd \"$D\" && " + script], cacheDir: cache.path,
            environment: ["IMGCACHE": CLI.executable.path, "U": server.url(""), "D": directory.path],
            executable: URL(fileURLWithPath: "/bin/sh"))
    }

    /// The names in `path`, as bytes.
    func names(in path: String) -> [[UInt8]] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var found: [[UInt8]] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != Array(".".utf8) && name != Array("..".utf8) { found.append(name) }
        }
        return found.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// The contents of the file whose path is `bytes`.
    func contents(of bytes: [UInt8]) -> [UInt8]? {
        let fd = (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { open($0.baseAddress!, O_RDONLY) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return result }
            result += chunk.prefix(count)
        }
    }

    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func fetchWritesTheFileAndTheCacheWhereTheBytesSay() throws {
        let result = try shell("exec \"$IMGCACHE\" fetch --cache-dir \"$D/c${E}che\" -o \"caf${E}.png\" \"$U/a.png\"")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            names(in: directory.path) == [bytes("caf") + [0xE9] + bytes(".png"), bytes("c") + [0xE9] + bytes("che")])
        #expect(contents(of: bytes(directory.path + "/caf") + [0xE9] + bytes(".png")) == png)
        // The parser's path too: -H sends the line to it.
        let parsed = try shell("exec \"$IMGCACHE\" fetch -H 'X-A: b' -o \"p${E}.png\" \"$U/a.png\"")
        #expect(parsed.status == 0, "\(parsed.stderr)")
        #expect(contents(of: bytes(directory.path + "/p") + [0xE9] + bytes(".png")) == png)
        #expect(names(in: directory.path).count == 3)
    }

    @Test func everySubcommandUsesTheCacheTheBytesName() throws {
        let cacheDir = "--cache-dir \"$D/c${E}che\""
        let fetched = try shell("\"$IMGCACHE\" fetch \(cacheDir) -o /dev/null \"$U/a.png\"")
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let named = bytes(directory.path + "/c") + [0xE9] + bytes("che")
        // --path prints the bytes of the path, usable as it is.
        let path = try shell("exec \"$IMGCACHE\" fetch \(cacheDir) --path \"$U/a.png\"")
        #expect(path.status == 0)
        #expect(path.stdout.starts(with: named + bytes("/entries/")))
        #expect(contents(of: Array(path.stdout.dropLast())) == png)
        // JSON: the byte as a lone surrogate, as Python's json writes a surrogateescape'd name.
        let json = try shell("exec \"$IMGCACHE\" fetch \(cacheDir) --json \"$U/a.png\"")
        #expect(json.stdoutText.contains("\"path\":\"\(directory.path)/c\\udce9che/entries/"), "\(json.stdoutText)")
        #expect(try shell("exec \"$IMGCACHE\" stat -q \(cacheDir) \"$U/a.png\"").status == 0)
        #expect(try shell("exec \"$IMGCACHE\" clean -q \(cacheDir)").status == 0)
        #expect(
            try shell("printf '%s\\n' \"$U/a.png\" > \"l${E}\"; exec \"$IMGCACHE\" prefetch -q \(cacheDir) \"l${E}\"")
                .status == 0)
        #expect(try shell("exec \"$IMGCACHE\" purge -q \(cacheDir) \"$U/a.png\"").status == 0)
        #expect(try shell("exec \"$IMGCACHE\" stat -q \(cacheDir) \"$U/a.png\"").status == 7)
        #expect(names(in: directory.path) == [bytes("c") + [0xE9] + bytes("che"), bytes("l") + [0xE9]])
        #expect(server.requestCount(for: "/a.png") == 1)
        // $IMGCACHE_DIR too.
        let environment = try shell("IMGCACHE_DIR=\"$D/e${E}\" exec \"$IMGCACHE\" fetch -o /dev/null \"$U/a.png\"")
        #expect(environment.status == 0)
        #expect(names(in: directory.path).contains(bytes("e") + [0xE9]))
    }

    @Test func outputDirectoryLinesNameTheFileAsItIs() throws {
        let result = try shell("exec \"$IMGCACHE\" fetch --output-dir \"o${E}\" \"$U/a.png\"")
        #expect(result.status == 0, "\(result.stderr)")
        let file = bytes(directory.path + "/o") + [0xE9] + bytes("/a.png")
        #expect(result.stdout == bytes(server.url("/a.png") + "\t") + file + [0x0A])
        #expect(contents(of: file) == png)
    }

    /// An error names such a path with the byte escaped, `\xE9`, not U+FFFD.
    @Test func errorsShowTheByteEscaped() throws {
        let output = try shell("exec \"$IMGCACHE\" fetch -o \"missing/x${E}.png\" \"$U/a.png\"")
        #expect(output.status == 23)
        #expect(output.stderr.contains("missing/x\\xE9.png: No such file or directory"), "\(output.stderr)")
        let list = try shell("exec \"$IMGCACHE\" prefetch \"m${E}\"")
        #expect(list.stderr == "imgcache: m\\xE9: No such file or directory\n")
        #expect(!list.stderr.contains("\u{FFFD}"))
    }

    /// A download the cache does not take (`--no-store`, a read-only cache)
    /// goes to a directory made under `$TMPDIR`, whose bytes are used as
    /// they are too: made from U+FFFD, its parent did not exist (exit 8,
    /// "cannot create directory /tmp/x\u{FFFD}/imgcache-…").
    @Test func theScratchDirectoryIsMadeWhereTMPDIRSays() throws {
        let result = try shell(
            "mkdir \"t${E}\" && TMPDIR=\"$D/t${E}\" exec \"$IMGCACHE\" fetch --no-store -o out.png \"$U/a.png\"")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(contents(of: bytes(directory.path + "/out.png")) == png)
        // Removed at the end, as under an ASCII $TMPDIR.
        let scratch = bytes(directory.path + "/t") + [0xE9]
        let dir = (scratch.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { opendir($0.baseAddress!) }
        #expect(dir != nil)
        if let dir {
            var left = 0
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
                if name != Array(".".utf8) && name != Array("..".utf8) { left += 1 }
            }
            closedir(dir)
            #expect(left == 0, "the scratch directory was left behind")
        }
    }

    /// A URL's byte that is not UTF-8 is sent percent-encoded, `%E9`, the
    /// octet curl sends (as `%e9`), and keyed so.
    @Test func aURLsRawByteIsSentPercentEncoded() throws {
        let result = try shell("exec \"$IMGCACHE\" fetch -o /dev/null \"$U/caf${E}.png\"")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.requestCount(for: "/caf%E9.png") == 1)
        let stat = try run("stat", "-q", server.url("/caf%E9.png"))
        #expect(stat.status == 0)
        let listed = try shell("printf '%s\\n' \"$U/caf${E}.png\" | exec \"$IMGCACHE\" prefetch --json -")
        #expect(listed.stdoutText.contains("\"url\":\"\(server.url("/caf%E9.png"))\""), "\(listed.stdoutText)")
    }
}
