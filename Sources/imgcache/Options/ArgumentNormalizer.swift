/// Rewrites the command line the way getopt-trained hands type it, before
/// swift-argument-parser reads it (the parser knows neither habit):
///
/// - a short option's attached value is split off: `-j6` becomes `-j 6`,
///   `-ofile` `-o file`, `-H"Accept: image/*"` `-H "Accept: image/*"`,
///   also after clustered flags (`-qj6`);
/// - global options given before the subcommand move after it, as git,
///   docker and kubectl allow (`imgcache --cache-dir DIR stat`).
///
/// Negative numbers (`--timeout -5`) need no rewriting: numeric options are
/// declared `parsing: .unconditional`, so, as with getopt, an option that
/// takes a value takes the next word whatever it looks like.
enum ArgumentNormalizer {
    /// The short options, of any subcommand, that take a value. These tables
    /// are read before the parser is (and on the warm hit, which never loads
    /// it); `OptionTablesTests` proves each equal to the parser's own
    /// definitions (its ToolInfo), not to its help text. Arrays, not sets:
    /// the warm hit reads them, and the first `Set` or `Dictionary` of an
    /// element type makes the Swift runtime search every protocol
    /// conformance in the binary for its `Hashable` (about 200 000
    /// instructions each, callgrind), where a search of a short array is a
    /// few dozen.
    static let shortOptionsTakingValue: [Character] = ["j", "o", "H", "u"]

    /// The global options that take a value (as `--name value` or `--name=value`).
    static let globalOptionsTakingValue: [String] = ["--cache-dir", "--remote-storage"]

    /// The global flags (`-q` and `-v` may also be clustered: `-qv` is refused later, as it should be).
    static let globalFlags: [String] = [
        "-q", "--quiet", "-v", "--verbose", "--json", "--progress", "--no-progress",
        "--no-remote-storage",
    ]

    /// `arguments` (without the program name), rewritten.
    static func normalize(_ arguments: [String], subcommands: [String]) -> [String] {
        moveGlobalOptions(splitAttachedValues(arguments), subcommands: subcommands)
    }

    /// Splits `-j6` into `-j`, `6` (and `-qj6` into `-q`, `-j`, `6`). The word
    /// after an option that takes a value is that value and left alone; so is
    /// everything after `--`.
    static func splitAttachedValues(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                result += arguments[(index - 1)...]
                break
            }
            guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 1 else {
                result.append(argument)
                continue
            }
            let letters = argument.dropFirst()
            guard let valueAt = letters.firstIndex(where: shortOptionsTakingValue.contains) else {
                result.append(argument)
                continue
            }
            let cluster = letters[..<valueAt]
            if !cluster.isEmpty { result.append("-" + cluster) }
            result.append("-" + String(letters[valueAt]))
            let value = letters[letters.index(after: valueAt)...]
            if value.isEmpty {
                // The value is the next word, whatever it looks like.
                if index < arguments.count {
                    result.append(arguments[index])
                    index += 1
                }
            } else {
                result.append(String(value))
            }
        }
        return result
    }

    /// Moves the global options before the first word after them, when that
    /// word is a subcommand, to just after it. Before `help`, they are dropped:
    /// help does not use them.
    static func moveGlobalOptions(_ arguments: [String], subcommands: [String]) -> [String] {
        var globals: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if globalFlags.contains(argument) || isClusterOfGlobalFlags(argument) {
                globals.append(argument)
                index += 1
            } else if globalOptionsTakingValue.contains(argument) {
                globals += arguments[index..<min(index + 2, arguments.count)]
                index += 2
            } else if globalOptionsTakingValue.contains(where: { argument.hasPrefix($0 + "=") }) {
                globals.append(argument)
                index += 1
            } else {
                break
            }
        }
        guard !globals.isEmpty, index < arguments.count, subcommands.contains(arguments[index]) else {
            return arguments
        }
        let subcommand = arguments[index]
        let rest = Array(arguments[(index + 1)...])
        return subcommand == "help" ? [subcommand] + rest : [subcommand] + globals + rest
    }

    /// What swift-argument-parser's root command takes: help, version, and
    /// what `make man` and the completion scripts ask it for.
    static let rootOptions: [String] = [
        "--help", "-h", "--version", "--generate-completion-script", "--experimental-dump-help",
    ]

    /// The first option before the subcommand that is not a global option
    /// (`imgcache --cache-dir d --timeout 60 prefetch`), if any: it belongs
    /// after the subcommand, or nowhere. `rootOptions` are the root command's own.
    static func unknownOptionBeforeSubcommand(_ arguments: [String], subcommands: [String]) -> String? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            // `---completion …` is how the completion scripts ask the parser.
            if subcommands.contains(argument) || argument == "--" || !argument.hasPrefix("-") || argument == "-"
                || argument.hasPrefix("---")
            {
                return nil
            }
            if globalOptionsTakingValue.contains(argument) {
                index += 2
            } else if isGlobalOption(argument) || rootOptions.contains(argument) {
                index += 1
            } else {
                return argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            }
        }
        return nil
    }

    /// Whether `argument` is a global option (or the start of one).
    static func isGlobalOption(_ argument: String) -> Bool {
        globalFlags.contains(argument) || isClusterOfGlobalFlags(argument)
            || globalOptionsTakingValue.contains(argument)
            || globalOptionsTakingValue.contains { argument.hasPrefix($0 + "=") }
    }

    /// `-qv` and the like.
    private static func isClusterOfGlobalFlags(_ argument: String) -> Bool {
        argument.count > 2 && argument.hasPrefix("-") && !argument.hasPrefix("--")
            && argument.dropFirst().allSatisfy { $0 == "q" || $0 == "v" }
    }
}
