import Foundation
import TestSupport
import Testing

/// Issue 26, finding 9: `imgcache help` starts with the short usage, and the
/// man page's header is not groff 1.22's "BSD General Commands Manual".
@Suite struct HelpAndManualTests {
    @Test func helpStartsWithTheShortUsage() throws {
        let scratch = try TemporaryDirectory()
        for arguments in [["help"], ["--help"], ["-h"]] {
            let result = try CLI.run(arguments, cacheDir: scratch.path)
            #expect(result.status == 0, "\(arguments)")
            #expect(result.stdoutText.hasPrefix("usage: imgcache [global options] <subcommand>"), "\(arguments)")
            #expect(result.stdoutText.contains("OVERVIEW:"), "the full help follows")
        }
    }

    /// Issue 35, class 5: a subcommand's help lists no option it refuses
    /// whatever else is given (the refusal itself stays, one line, exit 64).
    @Test func helpListsNoOptionItsSubcommandRefuses() throws {
        let scratch = try TemporaryDirectory()
        for subcommand in ["stat", "clean", "purge"] {
            let help = try CLI.run([subcommand, "--help"], cacheDir: scratch.path)
            #expect(help.status == 0)
            #expect(!help.stdoutText.contains("--progress"), "\(subcommand)")
            #expect(help.stdoutText.contains("--json"), "\(subcommand): the other global options stay")
            let refused = try CLI.run(
                [subcommand, "--progress"] + (subcommand == "purge" ? ["--all"] : []), cacheDir: scratch.path)
            #expect(refused.status == 64, "\(subcommand)")
            #expect(refused.stderr.contains("--progress has no effect"), "\(subcommand): \(refused.stderr)")
        }
        let prefetch = try CLI.run(["prefetch", "--help"], cacheDir: scratch.path)
        #expect(!prefetch.stdoutText.contains("--no-store") && prefetch.stdoutText.contains("--progress"))
        #expect(try CLI.run(["fetch", "--help"], cacheDir: scratch.path).stdoutText.contains("--no-store"))
    }

    /// Session 16 review: `imgcache fetch --help` printed `USAGE: fetch
    /// [<options>] <url> ...`, without the program's name that `imgcache help
    /// fetch` gives it; both are one help, word for word.
    @Test func aSubcommandsHelpIsTheSameWhicheverWayItIsAsked() throws {
        let scratch = try TemporaryDirectory()
        for subcommand in ["fetch", "prefetch", "stat", "clean", "purge"] {
            let asked = try CLI.run(["help", subcommand], cacheDir: scratch.path)
            #expect(asked.status == 0)
            #expect(asked.stdoutText.contains("\nUSAGE: imgcache \(subcommand) "), "\(subcommand)")
            for flag in ["--help", "-h"] {
                let flagged = try CLI.run([subcommand, flag], cacheDir: scratch.path)
                #expect(flagged.status == 0)
                #expect(flagged.stdoutText == asked.stdoutText, "\(subcommand) \(flag)")
            }
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/groff"), "needs groff"))
    func theManPageHeaderNamesNoBSD() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let header = try Shell.output("groff -mandoc -Tascii '\(root)/man/imgcache.1' 2>/dev/null | head -1")
        let line = String(decoding: header, as: UTF8.self)
        #expect(line.contains("General Commands Manual") && !line.contains("BSD"), "\(line)")
    }
}
