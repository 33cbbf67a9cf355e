import ArgumentParser
import Foundation
import Testing

@testable import imgcache

/// The command line as getopt-trained hands type it (issue 15, items 1–4 and
/// 7), through the same path as the binary: `ArgumentNormalizer`, then
/// `parseAsRoot`, then the one-line usage error.
@Suite struct ArgumentParsingTests {
    let url = "http://127.0.0.1:9/a.png"

    func parse(_ arguments: [String]) throws -> any ParsableCommand {
        try IMGCacheCommand.parseAsRoot(
            ArgumentNormalizer.normalize(arguments, subcommands: IMGCacheCommand.subcommandNames))
    }

    /// The usage error line `arguments` give, or nil if they parse.
    func usageError(_ arguments: [String]) -> String? {
        let normalized = ArgumentNormalizer.normalize(arguments, subcommands: IMGCacheCommand.subcommandNames)
        do {
            _ = try IMGCacheCommand.parseAsRoot(normalized)
            return nil
        } catch {
            return UsageError.line(
                subcommand: IMGCacheCommand.subcommand(in: normalized), message: IMGCacheCommand.message(for: error))
        }
    }

    // 1. Attached values of short options.

    @Test func attachedShortOptionValuesAreAccepted() throws {
        let prefetch = try #require(try parse(["prefetch", "-j6", "urls.txt"]) as? IMGCacheCommand.Prefetch)
        #expect(prefetch.concurrency == 6)
        #expect(prefetch.file == "urls.txt")
        let fetch = try #require(
            try parse(["fetch", "-oout.png", "-H", "X-A: 1", "-HAccept: image/*", "-uuser:pw", url])
                as? IMGCacheCommand.Fetch)
        #expect(fetch.output == ["out.png"])
        #expect(fetch.download.header == ["X-A: 1", "Accept: image/*"])
        #expect(fetch.download.user == "user:pw")
        #expect(fetch.urls == [url])
        let clustered = try #require(try parse(["fetch", "-qoout.png", url]) as? IMGCacheCommand.Fetch)
        #expect(clustered.global.quiet)
        #expect(clustered.output == ["out.png"])
    }

    @Test func aValueThatLooksLikeAnOptionIsLeftAlone() throws {
        let fetch = try #require(try parse(["fetch", "-o", "-junk", url]) as? IMGCacheCommand.Fetch)
        #expect(fetch.output == ["-junk"])
        #expect(ArgumentNormalizer.splitAttachedValues(["fetch", "--", "-j6"]) == ["fetch", "--", "-j6"])
    }

    // 2. Global options before the subcommand.

    @Test func globalOptionsAreAcceptedBeforeTheSubcommand() throws {
        let stat = try #require(try parse(["--cache-dir", "/tmp/c", "stat"]) as? IMGCacheCommand.Stat)
        #expect(stat.global.cacheDirectory == "/tmp/c")
        let clean = try #require(try parse(["-q", "clean"]) as? IMGCacheCommand.Clean)
        #expect(clean.global.quiet)
        let purge = try #require(
            try parse(["--json", "-v", "--cache-dir=/d", "purge", "--all"]) as? IMGCacheCommand.Purge)
        #expect(purge.global.json && purge.global.verbose && purge.all)
        #expect(purge.global.cacheDirectory == "/d")
        let fetch = try #require(
            try parse(["--no-progress", "fetch", "--cache-dir", "/e", url]) as? IMGCacheCommand.Fetch)
        #expect(fetch.global.progress == false)
        #expect(fetch.global.cacheDirectory == "/e")
        #expect(
            ArgumentNormalizer.normalize(["-q", "help", "fetch"], subcommands: IMGCacheCommand.subcommandNames) == [
                "help", "fetch",
            ])
    }

    // 3. Negative numbers and zero sizes.

    @Test func negativeNumbersReachValidation() {
        #expect(
            usageError(["fetch", "--timeout", "-5", url])
                == "imgcache: fetch: --timeout must be positive (see 'imgcache help fetch')")
        #expect(
            usageError(["fetch", "--retries", "-1", url])
                == "imgcache: fetch: --retries must be 0 to 10 (see 'imgcache help fetch')")
        #expect(
            usageError(["prefetch", "-j", "-2"])
                == "imgcache: prefetch: --concurrency must be 1 to 256 (see 'imgcache help prefetch')")
        #expect(usageError(["fetch", "--timeout=-5", url]) == usageError(["fetch", "--timeout", "-5", url]))
        #expect(
            usageError(["fetch", "--thumbnail", "0x0", url])?.contains("--thumbnail sizes must be positive") == true)
        #expect(usageError(["fetch", "--thumbnail", "big", url])?.contains("--thumbnail must be WIDTHxHEIGHT") == true)
    }

    // 4. One-line usage errors.

    @Test func usageErrorsAreOneLine() {
        #expect(
            usageError(["fetch", "--bogus", url])
                == "imgcache: fetch: unknown option '--bogus' (see 'imgcache help fetch')")
        #expect(
            usageError(["fetch"])
                == "imgcache: fetch: no URL given (imgcache fetch [options] URL...) (see 'imgcache help fetch')")
        #expect(usageError(["fetch", "-q"])?.hasPrefix("imgcache: fetch: no URL given") == true)
        #expect(usageError(["nosuch"]) == "imgcache: unexpected argument 'nosuch' (see 'imgcache --help')")
        for arguments in [
            ["fetch", "--bogus"], ["stat", "--max-age", "1d"], ["clean", "--max-age", "soon"], ["prefetch", "a", "b"],
        ] {
            let line = usageError(arguments)
            #expect(line?.contains("\n") == false, "\(arguments)")
            #expect(line?.hasPrefix("imgcache: \(arguments[0]): ") == true, "\(String(describing: line))")
        }
    }

    /// A value outside a list of six or more (`--encode` since it took jxl)
    /// is refused by the parser with the values on the lines after the
    /// first, which the one-line form dropped: "Please provide one of the
    /// following:" and nothing after it.
    @Test func aRefusedValueNamesTheValuesOnItsOneLine() {
        #expect(
            usageError(["fetch", "--encode", "heic", url])
                == "imgcache: fetch: the value 'heic' is invalid for '--encode <format>'. Please provide one of "
                + "'jpeg', 'png', 'webp', 'gif', 'avif' or 'jxl'. (see 'imgcache help fetch')")
        #expect(
            usageError(["fetch", "--decode", "jpg", url])
                == "imgcache: fetch: the value 'jpg' is invalid for '--decode <format>'. Please provide one of "
                + "'pam', 'ppm' or 'png'. (see 'imgcache help fetch')")
    }

    // 6. purge needs to be told what to remove.

    @Test func purgeWithoutATargetIsAUsageError() throws {
        #expect(
            usageError(["purge"])
                == "imgcache: purge: give URLs, --all or --failed; nothing was removed (see 'imgcache help purge')")
        #expect(usageError(["purge", "--all", url]) != nil)
        #expect(usageError(["purge", "--all", "--failed"]) != nil)
        #expect(usageError(["purge", "--all"]) == nil)
        #expect(usageError(["purge", "--failed"]) == nil)
        #expect(usageError(["purge", url]) == nil)
    }

    // 7. Options without effect are refused.

    @Test func optionsWithoutEffectAreRefused() {
        let refused: [[String]] = [
            ["fetch", "--quality", "80", url],
            ["fetch", "--quality", "80", "--encode", "png", url],
            ["fetch", "--quality", "80", "--thumbnail", "8x8", "--decode", "pam", url],
            ["fetch", "--no-orient", url],
            ["fetch", "--colorspace", "srgb", url],
            ["fetch", "--colorspace", "cmyk", "--decode", "ppm", url],
            ["fetch", "--frame", "0", url],
            ["fetch", "--offline", "--refresh", url],
            ["fetch", "--offline", "-k", url],
            ["fetch", "--offline", "--stale-if-error", url],
            ["prefetch", "--no-store", "urls.txt"],
            ["purge", "--all", "--key-ignore-query"],
            ["stat", "--key-strip-param", "sig"],
            ["stat", "-q", "--progress"],
        ]
        for arguments in refused {
            #expect(usageError(arguments) != nil, "\(arguments) was accepted")
        }
        let accepted: [[String]] = [
            ["fetch", "--quality", "80", "--encode", "jpeg", url],
            ["fetch", "--quality", "80", "--thumbnail", "8x8", url],
            ["fetch", "--no-orient", "--decode", "pam", url],
            ["fetch", "--colorspace", "original", "--decode", "ppm", url],
            ["fetch", "--colorspace", "srgb", "--thumbnail", "8x8", url],
            ["fetch", "--offline", url],
            ["fetch", "--offline", "-H", "Accept-Language: en", url],
            ["stat", "--key-strip-param", "sig", url],
            ["purge", "--key-ignore-query", url],
        ]
        for arguments in accepted {
            #expect(usageError(arguments) == nil, "\(arguments): \(usageError(arguments) ?? "")")
        }
    }
}

extension ArgumentParsingTests {
    /// `--colorspace` defaults to srgb for `--decode` and to original (profile kept) for encoded output.
    @Test func colourSpaceDefaultsFollowTheOutput() throws {
        let decode = try #require(try parse(["fetch", "--decode", "ppm", url]) as? IMGCacheCommand.Fetch)
        #expect(decode.colourSpace == .srgb && decode.rendition.colourSpace == .srgb)
        let thumbnail = try #require(try parse(["fetch", "--thumbnail", "8x8", url]) as? IMGCacheCommand.Fetch)
        #expect(thumbnail.colourSpace == .original && thumbnail.rendition.colourSpace == .original)
        let chosen = try #require(
            try parse(["fetch", "--thumbnail", "8x8", "--colorspace", "srgb", url]) as? IMGCacheCommand.Fetch)
        #expect(chosen.rendition.colourSpace == .srgb)
        #expect(chosen.rendition.variantName?.hasSuffix(",colorspace=srgb") == true)
    }

    // The line read before the parser (`OptionScan`, `URLOperands`).

    @Test func theScanFindsTheFirstUnknownOptionAndTheOperands() throws {
        func scan(_ arguments: [String]) throws -> OptionScan {
            let words = ArgumentNormalizer.normalize(arguments, subcommands: IMGCacheCommand.subcommandNames)
            return OptionScan(words.dropFirst(), options: try #require(SubcommandOptions.options(of: words[0])))
        }
        #expect(try scan(["fetch", "--bogus"]).unknown == "--bogus")
        #expect(try scan(["fetch", "-o", "a", "--bogus=1", "--also-bogus"]).unknown == "--bogus")
        #expect(try scan(["fetch", "-qx", url]).unknown == "-x")
        #expect(try scan(["purge", "--all", "-z"]).unknown == "-z")
        // A value is the option's, whatever it looks like; after `--`, every word is an operand.
        let line = try scan(["fetch", "-o", "--bogus", "-H", "-x", "--cache-dir=d", url, "--", "--also"])
        #expect(line.unknown == nil)
        #expect(line.operands == [6, 8])
        #expect(try scan(["-q", "fetch", "-ofile", url]).unknown == nil)
        #expect(try scan(["fetch", "-j6", url]).unknown == "-j")
        #expect(try scan(["prefetch", "-qj6", "list"]).operands == [4])
        #expect(
            OptionScan.suggestion(for: "--thumbail", options: SubcommandOptions.options(of: "fetch")!) == "--thumbnail")
        #expect(OptionScan.suggestion(for: "--bogus", options: SubcommandOptions.options(of: "fetch")!) == nil)
        #expect(OptionScan.nearest(to: "fecth", among: IMGCacheCommand.subcommandNames) == "fetch")
        #expect(OptionScan.nearest(to: "bogus", among: IMGCacheCommand.subcommandNames) == nil)
    }

    /// swift-argument-parser is quadratic in a repeated positional's values
    /// (4 000 URLs took 2.7 s): it is given the first URL of a line, however
    /// many there are, and the command gets them all, in order, through
    /// `URLOperands` before its own checks. A count, not a time.
    @Test func theParserIsGivenOneURLOfMany() throws {
        let urls = (0..<4000).map { "http://127.0.0.1:9/many/\($0).png" }
        let arguments = ["fetch", "-H", "X: y", urls[0], "-q"] + urls.dropFirst() + ["--", "http://127.0.0.1:9/last"]
        let words = ArgumentNormalizer.normalize(arguments, subcommands: IMGCacheCommand.subcommandNames)
        let scan = OptionScan(words.dropFirst(), options: try #require(SubcommandOptions.options(of: "fetch")))
        let (parserWords, held) = try #require(URLOperands.split(words, scan: scan))
        #expect(parserWords == ["fetch", "-H", "X: y", urls[0], "-q", "--"])
        #expect(held == urls + ["http://127.0.0.1:9/last"])
        #expect(URLOperands.split(["fetch", "-q", urls[0]], scan: OptionScan(["-q", urls[0]], options: [])) == nil)
        URLOperands.holder.hold(held)
        defer { URLOperands.holder.hold(nil) }
        let fetch = try #require(try IMGCacheCommand.parseAsRoot(parserWords) as? IMGCacheCommand.Fetch)
        #expect(fetch.urls == held)
        #expect(fetch.download.header == ["X: y"])
        // The checks see every URL: four -o for 4 001 URLs is refused.
        URLOperands.holder.hold(held)
        #expect(throws: (any Error).self) {
            try IMGCacheCommand.parseAsRoot(["fetch", "-o", "a", "-o", "b", urls[0]])
        }
    }

    /// The parser is quadratic in an array option's values too (`-o` 1 000
    /// times with `-H`, which `FetchPlan` leaves to it: 970 M instructions):
    /// it is given the first `-o` of a line, and `fetch` gets every file, in
    /// order, through `OutputOperands`. A count, not a time.
    @Test func theParserIsGivenOneOutputOfMany() throws {
        let urls = (0..<4000).map { "http://127.0.0.1:9/many/\($0).png" }
        let arguments =
            ["fetch", "-H", "X: y"] + urls.indices.flatMap { ["-o", "f\($0)", urls[$0]] }
            + ["--output=last.png", "-q", "http://127.0.0.1:9/last"]
        defer {
            URLOperands.holder.hold(nil)
            OutputOperands.holder.hold(nil)
        }
        let words = IMGCacheCommand.checkedWords(
            ArgumentNormalizer.normalize(arguments, subcommands: IMGCacheCommand.subcommandNames))
        #expect(words == ["fetch", "-H", "X: y", "-o", "f0", urls[0], "-q"])
        let fetch = try #require(try IMGCacheCommand.parseAsRoot(words) as? IMGCacheCommand.Fetch)
        #expect(fetch.output == urls.indices.map { "f\($0)" } + ["last.png"])
        #expect(fetch.urls == urls + ["http://127.0.0.1:9/last"])
        #expect(fetch.download.header == ["X: y"] && fetch.global.quiet)
        // A value the parser would refuse leaves every -o to it.
        let refused = ["fetch", "-o", "a", url, "-o", "-b", url]
        let options = try #require(SubcommandOptions.options(of: "fetch"))
        let scan = OptionScan(refused.dropFirst(), options: options, recording: OutputOperands.names)
        #expect(scan.recorded == [1, 4])
        #expect(OutputOperands.split(refused, scan: scan) == nil)
    }
}
