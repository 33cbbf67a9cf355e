import ImageCore

/// `clean`'s usual command line, read without swift-argument-parser
/// (`PlainCommandLine`): `--cache-dir DIR`, `-q`, `-v`, `--json`,
/// `--no-progress`, `--max-age D`, `--max-size S` and `--dry-run`, each at
/// most once. Why: the parser's first parse of `clean` looks up its options
/// by reflection and protocol conformances, 11 M of the 12.2 M
/// instructions a clean of an empty cache takes (callgrind), all of it on
/// one thread before the shards' scan starts on every processor: a
/// twentieth of a 100 000-entry clean's time on two cores. Anything else
/// (`--progress`, `--remote-storage`, a bad duration or size, an operand,
/// `$IMGCACHE_REMOTE_STORAGE`, whose value the parser checks) is nil and
/// goes to the parser; the same run follows either way
/// (`IMGCacheCommand.Clean.run(_:)`). `CleanPlanTests` proves that each
/// line the plan reads, the parser reads to the same values.
struct CleanPlan: Equatable {
    var cacheDirectory: String?
    var quiet = false
    var verbose = false
    var json = false
    /// `--max-age` and `--max-size` as given (checked to parse).
    var maxAge: String?
    var maxSize: String?
    var dryRun = false

    /// The options the plan reads, with every name the parser gives each
    /// for `clean` and whether it takes a value (`OptionTablesTests` proves
    /// them the parser's). `init` reads the values by position.
    static let options: [PlainCommandLine.Option] = [
        (["--cache-dir"], true), (["-q", "--quiet"], false), (["-v", "--verbose"], false), (["--json"], false),
        (["--no-progress"], false), (["--max-age"], true), (["--max-size"], true), (["--dry-run"], false),
    ]

    /// The values the parser read, as a plan.
    init(
        cacheDirectory: String?, quiet: Bool, verbose: Bool, json: Bool, maxAge: String?, maxSize: String?,
        dryRun: Bool
    ) {
        (self.cacheDirectory, self.quiet, self.verbose, self.json) = (cacheDirectory, quiet, verbose, json)
        (self.maxAge, self.maxSize, self.dryRun) = (maxAge, maxSize, dryRun)
    }

    init?(arguments: [String]) {
        guard Environment.value(of: RemoteStorageOptions.environmentVariable) == nil,
            let line = PlainCommandLine(arguments, subcommand: "clean", options: Self.options),
            line.operands.isEmpty
        else { return nil }
        cacheDirectory = line.values[0]
        (quiet, verbose, json, dryRun) = (line.has(1), line.has(2), line.has(3), line.has(7))
        (maxAge, maxSize) = (line.values[5], line.values[6])
        // What `validate()` of the command and of its global options refuse.
        guard cacheDirectory?.isEmpty != true, !(quiet && verbose),
            maxAge.map({ Quantities.parseDuration($0) != nil }) ?? true,
            maxSize.map({ Quantities.parseSizeLimit($0) != nil }) ?? true
        else { return nil }
    }
}
