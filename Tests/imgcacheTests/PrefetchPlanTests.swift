import ArgumentParser
import Foundation
import ImageCore
import Testing

@testable import imgcache

/// Which `prefetch` command lines are read without the argument parser
/// (`PrefetchPlan`), and that the parser reads each of them to the same
/// values, with every option the plan does not read at its default: the
/// same run follows either way.
@Suite struct PrefetchPlanTests {
    /// The command the parser makes of `arguments`, as `runCommandLine` makes it.
    static func parsed(_ arguments: [String]) throws -> IMGCacheCommand.Prefetch {
        let words = ArgumentNormalizer.normalize(arguments, subcommands: IMGCacheCommand.subcommandNames)
        let command = try IMGCacheCommand.parseAsRoot(words)
        return try #require(command as? IMGCacheCommand.Prefetch)
    }

    @Test func eachLineThePlanReadsTheParserReadsTheSame() throws {
        let taken: [[String]] = [
            ["prefetch"], ["prefetch", "list.txt"], ["prefetch", "-q", "-j6", "--cache-dir", "/c", "list.txt"],
            ["--cache-dir", "/c", "-v", "prefetch", "--json", "--no-progress", "-j", "16", "--lifo", "list.txt"],
            ["prefetch", "--concurrency=256", "--cache-dir=/c", "--quiet", "--no-progress"],
            ["prefetch", "--progress", "--verbose", "-j", "1"], ["-q", "prefetch", "--json", "list.txt"],
            ["prefetch", "-j+3", "l"],
        ]
        for arguments in taken {
            let plan = try #require(PrefetchPlan(arguments: arguments), "\(arguments)")
            let command = try Self.parsed(arguments)
            let global = command.global
            #expect(
                plan
                    == PrefetchPlan(
                        cacheDirectory: global.cacheDirectory, quiet: global.quiet, verbose: global.verbose,
                        json: global.json, progress: global.progress, concurrency: command.concurrency,
                        lifo: command.lifo, file: command.file), "\(arguments)")
            // What the plan's run assumes of the options it does not read.
            #expect(global.remote.remoteStorage == nil && !global.remote.noRemoteStorage)
            #expect("\(command.download.request(for: "u"))" == "\(ImageRequest(url: "u"))")
            let directory = CacheDirectory(root: "/c")
            let untouched = ImageManager.Configuration(directory: directory)
            var configuration = untouched
            command.download.apply(to: &configuration)
            #expect(configuration.keyPolicy == untouched.keyPolicy && configuration.limits == untouched.limits)
            #expect(configuration.cookieJar == nil && configuration.maxConnectionsPerHost == nil)
            #expect(configuration.maxBytesPerSecond == nil && configuration.requestRate == nil)
        }
    }

    @Test func everythingElseIsLeftToTheParser() {
        let refused: [[String]] = [
            [], ["fetch"], ["stat"], ["help", "prefetch"], ["prefetch", "a", "b"], ["prefetch", "-"],
            ["prefetch", "-qv"], ["prefetch", "-q", "-v"], ["prefetch", "-q", "--progress"],
            ["prefetch", "--progress", "--no-progress"], ["prefetch", "-j", "0"], ["prefetch", "-j", "257"],
            ["prefetch", "-j", "x"], ["prefetch", "-j"], ["prefetch", "-j6", "-j6"], ["prefetch", "--cache-dir", ""],
            ["prefetch", "--retries", "2"], ["prefetch", "--offline"], ["prefetch", "-H", "A: b"],
            ["prefetch", "--no-remote-storage"], ["prefetch", "--remote-storage", "redis://h"],
            ["prefetch", "--placeholder", "--json"], ["prefetch", "--", "list.txt"], ["prefetch", "--lifo=1"],
            ["prefetch", "--help"], ["prefetch", "--cookie-jar", "j"], ["prefetch", "--cache-dir", "--json"],
            ["prefetch", "--cache-dir", "-q", "list.txt"],
        ]
        for arguments in refused { #expect(PrefetchPlan(arguments: arguments) == nil, "\(arguments)") }
    }

    /// The lines refused for a value the parser refuses too are its usage errors.
    @Test func theParserRefusesWhatThePlanRefusesAsInvalid() {
        let invalid: [[String]] = [
            ["prefetch", "-q", "-v"], ["prefetch", "-q", "--progress"], ["prefetch", "-j", "0"],
            ["prefetch", "-j", "257"], ["prefetch", "-j", "x"], ["prefetch", "--cache-dir", ""],
            ["prefetch", "a", "b"], ["prefetch", "--cache-dir", "--json"],
            ["prefetch", "--cache-dir", "-q", "list.txt"],
        ]
        for arguments in invalid { #expect(throws: (any Error).self, "\(arguments)") { try Self.parsed(arguments) } }
    }
}
