import ArgumentParser
import ImageCore
import Testing

@testable import imgcache

/// Which `clean` command lines are read without the argument parser
/// (`CleanPlan`), and that the parser reads each of them to the same
/// values: the same run follows either way.
@Suite struct CleanPlanTests {
    /// The command the parser makes of `arguments`, as `runCommandLine` makes it.
    static func parsed(_ arguments: [String]) throws -> IMGCacheCommand.Clean {
        let words = ArgumentNormalizer.normalize(arguments, subcommands: IMGCacheCommand.subcommandNames)
        let command = try IMGCacheCommand.parseAsRoot(words)
        return try #require(command as? IMGCacheCommand.Clean)
    }

    @Test func eachLineThePlanReadsTheParserReadsTheSame() throws {
        let taken: [[String]] = [
            ["clean"], ["clean", "-q", "--cache-dir", "/c", "--max-age", "7d"],
            ["--cache-dir", "/c", "-v", "clean", "--max-size", "2G", "--dry-run"],
            ["clean", "--max-age=30m", "--max-size=100M", "--cache-dir=/c", "--quiet", "--no-progress"],
            ["-q", "clean", "--json", "--max-age", "0s"], ["clean", "--verbose", "--json", "--dry-run"],
            ["clean", "--max-size", "none"], ["clean", "--max-size=0"],
        ]
        for arguments in taken {
            let plan = try #require(CleanPlan(arguments: arguments), "\(arguments)")
            let command = try Self.parsed(arguments)
            let global = command.global
            #expect(
                plan
                    == CleanPlan(
                        cacheDirectory: global.cacheDirectory, quiet: global.quiet, verbose: global.verbose,
                        json: global.json, maxAge: command.maxAge, maxSize: command.maxSize,
                        dryRun: command.dryRun), "\(arguments)")
            // What the plan's run assumes of the options it does not read.
            #expect(global.remote.remoteStorage == nil && !global.remote.noRemoteStorage)
        }
    }

    @Test func everythingElseIsLeftToTheParser() {
        let refused: [[String]] = [
            [], ["fetch"], ["stat"], ["help", "clean"], ["clean", "x"], ["clean", "-"], ["clean", "-qv"],
            ["clean", "-q", "-v"], ["clean", "--progress"], ["clean", "--progress", "--no-progress"],
            ["clean", "--max-age", "soon"], ["clean", "--max-size", "big"], ["clean", "--max-age"],
            ["clean", "--max-age", "1d", "--max-age", "2d"], ["clean", "--cache-dir", ""],
            ["clean", "--no-remote-storage"], ["clean", "--remote-storage", "redis://h"], ["clean", "--", "x"],
            ["clean", "--dry-run=1"], ["clean", "--help"], ["clean", "--cache-dir", "--json"],
            ["clean", "--max-age", "-q"],
        ]
        for arguments in refused { #expect(CleanPlan(arguments: arguments) == nil, "\(arguments)") }
    }

    /// The lines refused for a value the parser refuses too are its usage errors.
    @Test func theParserRefusesWhatThePlanRefusesAsInvalid() {
        let invalid: [[String]] = [
            ["clean", "x"], ["clean", "-q", "-v"], ["clean", "--progress"], ["clean", "--max-age", "soon"],
            ["clean", "--max-size", "big"], ["clean", "--cache-dir", ""], ["clean", "--cache-dir", "--json"],
        ]
        for arguments in invalid { #expect(throws: (any Error).self, "\(arguments)") { try Self.parsed(arguments) } }
    }
}
