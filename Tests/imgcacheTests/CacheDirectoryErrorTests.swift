import Foundation
import TestSupport
import Testing

/// Issue 26, findings 4 and 5: every subcommand says the same thing, in the
/// same shape, about a cache directory it cannot use and about the cache's
/// imgcache.conf; an option before the subcommand that does not belong
/// there is named.
@Suite(.serialized) struct CacheDirectoryErrorTests: CommandSuite {
    let fixture: CommandFixture

    init() throws {
        fixture = try CommandFixture()
        server.route("/a.png", .ok(Fixtures.tinyPNG))
    }

    /// One command line per subcommand, each of which would succeed on a good cache.
    var everySubcommand: [[String]] {
        let url = server.url("/a.png")
        return [
            ["fetch", "-o", "/dev/null", url], ["prefetch", "-"], ["stat"], ["stat", url], ["clean"],
            ["purge", "--all"], ["purge", url], ["purge", "--failed"],
        ]
    }

    @Test func aFileAsCacheDirectoryIsExit8WithThePathEverywhere() throws {
        let file = "\(cache.path)/not-a-directory"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        for arguments in everySubcommand {
            let result = try CLI.run(arguments, cacheDir: file, stdin: Array("\(server.url("/a.png"))\n".utf8))
            #expect(result.status == 8, "\(arguments): \(result.stderr)")
            #expect(result.stderr == "imgcache: cache \(file): Not a directory\n", "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
        }
        #expect(server.requestCount(for: "/a.png") == 0)
    }

    @Test(.enabled(if: geteuid() != 0, "root reads and writes any directory"))
    func anUnreadableOrUnwritableCacheIsExit8WhereItMatters() throws {
        let locked = "\(cache.path)/locked"
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false)
        chmod(locked, 0o300)  // writable, not readable
        defer { chmod(locked, 0o700) }
        for arguments in everySubcommand {
            let result = try CLI.run(arguments, cacheDir: locked, stdin: [])
            #expect(result.status == 8, "\(arguments): \(result.stderr)")
            #expect(result.stderr == "imgcache: cache \(locked): Permission denied\n", "\(arguments)")
        }
        chmod(locked, 0o500)  // readable, not writable: stat reads it; clean and purge need to write
        for arguments in [["clean"], ["purge", "--all"], ["prefetch", "-"]] {
            let result = try CLI.run(arguments, cacheDir: locked, stdin: [])
            #expect(result.status == 8, "\(arguments): \(result.stderr)")
            #expect(result.stderr == "imgcache: cache \(locked): Permission denied\n", "\(arguments)")
        }
        #expect(try CLI.run(["stat"], cacheDir: locked).status == 0)
    }

    @Test func anUnknownSettingIsAWarningAndTheCommandGoesOn() throws {
        let conf = "\(cache.path)/imgcache.conf"
        try Data("max-age = 3d\nnewer-setting = 1\n".utf8).write(to: URL(fileURLWithPath: conf))
        let warning = "imgcache: \(conf):2: unknown setting 'newer-setting', ignored\n"
        for arguments in everySubcommand {
            let result = try run(arguments, stdin: Array("\(server.url("/a.png"))\n".utf8))
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix(warning), "\(arguments): \(result.stderr)")
            #expect(result.stderr.components(separatedBy: "unknown setting").count == 2, "\(arguments)")
            let quiet = try run([arguments[0], "-q"] + arguments.dropFirst(), stdin: [])
            #expect(!quiet.stderr.contains("unknown setting"), "\(arguments)")
        }
        #expect(try run("stat", "--json").stdoutText.contains("\"max_age_s\":259200"))
    }

    @Test func aBadSettingIsExit64InOneShapeEverywhere() throws {
        let conf = "\(cache.path)/imgcache.conf"
        try Data("# shared\nmax-age = banana\n".utf8).write(to: URL(fileURLWithPath: conf))
        for arguments in everySubcommand {
            let result = try run(arguments, stdin: Array("\(server.url("/a.png"))\n".utf8))
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr == "imgcache: \(conf):2: bad duration 'banana'\n", "\(arguments)")
        }
        #expect(server.requestCount(for: "/a.png") == 0)
    }

    @Test func anOptionBeforeTheSubcommandThatIsNotGlobalIsNamed() throws {
        let result = try run("--cache-dir", cache.path, "--timeout", "60", "prefetch", "f")
        #expect(result.status == 64)
        #expect(result.stderr == "imgcache: unknown option '--timeout' before the subcommand (see 'imgcache --help')\n")
        let attached = try run("-q", "-j6", "prefetch")
        #expect(attached.stderr == "imgcache: unknown option '-j' before the subcommand (see 'imgcache --help')\n")
        let equals = try run("--bogus=1", "stat")
        #expect(equals.stderr == "imgcache: unknown option '--bogus' before the subcommand (see 'imgcache --help')\n")
        // Global options there are fine, and so is what the root command itself takes.
        #expect(try run("--cache-dir", cache.path, "-q", "stat").status == 0)
        #expect(try run("--version").status == 0)
    }
}
