import ArgumentParser
import ImageCore

#if canImport(Glibc)
    import Glibc
#endif

extension IMGCacheCommand {
    /// The subcommands' names, and `help`.
    static let subcommandNames: [String] = configuration.subcommands.map { $0._commandName } + ["help"]

    /// The subcommand a normalized command line names, if any.
    static func subcommand(in arguments: [String]) -> String? {
        arguments.first.flatMap { subcommandNames.contains($0) ? $0 : nil }
    }

    /// Replaces swift-argument-parser's entry point so the command line reads
    /// as getopt users expect (`ArgumentNormalizer`) and a usage error is one
    /// line on stderr with exit status 64, like every other error. Called
    /// by `ProcessEntry` when `WarmHit` does not answer.
    static func runCommandLine() async {
        let arguments = ArgumentNormalizer.normalize(
            ProcessArguments.afterName, subcommands: subcommandNames)
        if arguments.isEmpty {
            StandardStreams.printError(UsageError.shortUsage)
            Glibc.exit(64)
        }
        if arguments.count == 2, arguments[0] == "--generate-completion-script",
            let script = CompletionScripts.script(for: arguments[1])
        {
            printAndExit(script)
        }
        if arguments == ["help"] || arguments == ["--help"] || arguments == ["-h"] {
            // The short usage first: the full help starts with pages of prose.
            printAndExit(UsageError.shortUsage + "\n\n" + helpMessage(columns: nil))
        }
        if arguments.count > 1, arguments[0] == "help", !arguments[1].hasPrefix("-"),
            !subcommandNames.contains(arguments[1])
        {
            UsageError.exit(subcommand: "help", message: "no subcommand '\(arguments[1])'")
        }
        if let unknown = ArgumentNormalizer.unknownOptionBeforeSubcommand(arguments, subcommands: subcommandNames) {
            UsageError.exit(subcommand: nil, message: "unknown option '\(unknown)' before the subcommand")
        }
        if subcommand(in: arguments) == nil, let first = arguments.first, ArgumentNormalizer.isGlobalOption(first) {
            UsageError.exit(subcommand: nil, message: "no subcommand after \(first)")
        }
        if subcommand(in: arguments) == nil, let first = arguments.first, !first.hasPrefix("-") {
            let nearest = OptionScan.nearest(to: first, among: subcommandNames)
            UsageError.exit(
                subcommand: nil, message: "no subcommand '\(first)'" + (nearest.map { "; did you mean '\($0)'?" } ?? "")
            )
        }
        let parsed = checkedWords(arguments)
        do {
            var command = try parseSubcommandAlone(parsed) ?? parseAsRoot(parsed)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            OutputFailure.exitIfStdoutFailed(status: 0)
        } catch let error as ExitCode {
            OutputFailure.exitIfStdoutFailed(status: error.rawValue)
            exit(withError: error)
        } catch {
            // --version, --help and `help SUBCOMMAND` end the parse with
            // success: printed here, so a failed write is exit 23 as for any output.
            if exitCode(for: error) == .success { printAndExit(fullMessage(for: error)) }
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            UsageError.exit(subcommand: subcommand(in: arguments), message: message(for: error))
        }
    }
}

extension IMGCacheCommand {
    /// The words to give the parser for a normalized line. An unknown option
    /// is the first error named, whatever else is wrong (`fetch --bogus`
    /// without a URL was "missing expected argument", `fetch --thumbail 64x64
    /// URL` "'64x64' is not an http or https URL"), as git and curl name it;
    /// and of many URLs only the first is given, the rest held by
    /// `URLOperands`, and of many `-o` the first, the rest held by
    /// `OutputOperands` (the parser is quadratic in either).
    static func checkedWords(_ arguments: [String]) -> [String] {
        guard let name = subcommand(in: arguments), let options = SubcommandOptions.options(of: name) else {
            return arguments
        }
        var scan = OptionScan(arguments.dropFirst(), options: options, recording: OutputOperands.names)
        if let unknown = scan.unknown {
            let nearest = OptionScan.suggestion(for: unknown, options: options)
            UsageError.exit(
                subcommand: name,
                message: "unknown option '\(unknown)'" + (nearest.map { "; did you mean '\($0)'?" } ?? ""))
        }
        var arguments = arguments
        if let (words, files) = OutputOperands.split(arguments, scan: scan) {
            OutputOperands.holder.hold(files)
            arguments = words
            scan = OptionScan(arguments.dropFirst(), options: options)
        }
        guard let (words, urls) = URLOperands.split(arguments, scan: scan) else { return arguments }
        URLOperands.holder.hold(urls)
        return words
    }

    /// Runs a subcommand read by its plan (`PrefetchPlan`, `FetchPlan`)
    /// rather than by the parser, ending as `runCommandLine` ends a parsed
    /// one: returns after success, exits with the status the run throws,
    /// and with 23 if stdout could not be written.
    static func run(_ planned: @MainActor () async throws -> Void) async {
        do {
            try await planned()
            OutputFailure.exitIfStdoutFailed(status: 0)
        } catch let error as ExitCode {
            OutputFailure.exitIfStdoutFailed(status: error.rawValue)
            Glibc.exit(error.rawValue)
        } catch {
            exit(withError: error)
        }
    }

    /// The subcommand a command line starts with, parsed as a root of its
    /// own; nil if the line starts with no subcommand or does not parse so
    /// (help, a version, a usage error), which then goes through
    /// `parseAsRoot` for its usual handling and message. Why: from the root,
    /// swift-argument-parser builds the subcommand's argument set twice,
    /// once to see whether it takes passthrough arguments (it reflects over
    /// every option), then to parse: 10 M of `fetch`'s 26 M instructions of
    /// parsing. The root holds no options of its own, so the result is the same,
    /// but for `SUBCOMMAND --help`: the parser answers it with its own help
    /// command, which renders the usage of the command stack it was parsed
    /// in (`USAGE: fetch [<options>] <url> ...`, where `imgcache help fetch`
    /// says `USAGE: imgcache fetch ...`), so that goes through the root too.
    static func parseSubcommandAlone(_ arguments: [String]) -> (any ParsableCommand)? {
        guard let name = arguments.first,
            let subcommand = configuration.subcommands.first(where: { $0._commandName == name }),
            let parsed = try? subcommand.parseAsRoot(Array(arguments.dropFirst())),
            type(of: parsed) == subcommand
        else { return nil }
        return parsed
    }

    /// Prints `text` (help, a version, a completion script) on stdout and
    /// exits 0, or 23 if stdout could not take it (`make install` writes
    /// completions through a redirect: a full disk must not pass unnoticed).
    static func printAndExit(_ text: String) -> Never {
        StandardStreams.print(text)
        OutputFailure.exitIfStdoutFailed(status: 0)
        Glibc.exit(0)
    }
}

/// One-line usage errors: `imgcache: fetch: unknown option '--bogus' (see 'imgcache help fetch')`.
enum UsageError {
    /// What bare `imgcache` prints on stderr.
    static let shortUsage = """
        usage: imgcache [global options] <subcommand> [options] [arguments]
          fetch URL...      fetch images (bytes, pixels, a path or JSON to stdout)
          prefetch [FILE]   warm the cache with URLs read from FILE or stdin
          stat [URL...]     show the cache, or what it holds for URLs
          clean             remove entries unused too long, then down to a size
          purge (URL...|--all|--failed)   remove entries or forget failures
        global options: --cache-dir DIR, -q, -v, --json, --progress, --no-progress
        See 'imgcache --help', 'imgcache help SUBCOMMAND' and man imgcache.
        """

    /// Prints the one-line form of `message` and exits 64.
    static func exit(subcommand: String?, message: String) -> Never {
        StandardStreams.printError(line(subcommand: subcommand, message: message))
        Glibc.exit(64)
    }

    /// `imgcache: SUBCOMMAND: what is wrong (see 'imgcache help SUBCOMMAND')`:
    /// the first line of the parser's message, with its capital dropped unless
    /// it starts a name such as "HTTP".
    static func line(subcommand: String?, message: String) -> String {
        let lines = message.split(separator: "\n")
        var text = lines.first.map(String.init) ?? message
        // Why: the parser lists six or more allowed values one per line
        // ("one of the following:" then "  - jpeg"…); put them on this one, as
        // it writes five or fewer.
        let bullets = lines.dropFirst().compactMap { line in
            line.hasPrefix("  - ") ? "'\(line.dropFirst(4))'" : nil
        }
        if text.hasSuffix(" one of the following:"), let last = bullets.last {
            text.removeLast("the following:".count)
            text += bullets.dropLast().joined(separator: ", ") + " or \(last)."
        }
        if text.hasPrefix("Error: ") { text.removeFirst("Error: ".count) }
        // The parser's words for `fetch` without a URL name its help's
        // placeholder; say what is missing, as curl's "no URL specified".
        if text == "Missing expected argument '<url> ...'" { text = "no URL given (imgcache fetch [options] URL...)" }
        if let first = text.first, first.isUppercase, text.dropFirst().first?.isLowercase == true {
            text = first.lowercased() + text.dropFirst()
        }
        guard let subcommand else { return "imgcache: \(text) (see 'imgcache --help')" }
        let helpName = subcommand == "help" ? "--help" : "help \(subcommand)"
        return "imgcache: \(subcommand): \(text) (see 'imgcache \(helpName)')"
    }
}
