import ImageCore

/// `prefetch`'s usual command line, read without swift-argument-parser
/// (`PlainCommandLine`): `--cache-dir DIR`, `-q`, `-v`, `--json`,
/// `--progress` or `--no-progress`, `-j N`, `--lifo` and a FILE, each at
/// most once. Why: the parser's first parse of `prefetch` looks up its
/// options by reflection and protocol conformances, 17 M instructions,
/// 4 % of a cold 1000-URL run (callgrind). Anything else (a download
/// option, `-`, a usage error, `$IMGCACHE_REMOTE_STORAGE`, whose value the
/// parser checks) is nil and goes to the parser; the same run follows
/// either way (`IMGCacheCommand.Prefetch.run(_:download:remote:)`).
/// `PrefetchPlanTests` proves that each line the plan reads, the parser
/// reads to the same values, with no download option set.
struct PrefetchPlan: Equatable {
    var cacheDirectory: String?
    var quiet = false
    var verbose = false
    var json = false
    /// `--progress` (true), `--no-progress` (false), or neither (nil).
    var progress: Bool?
    var concurrency = Defaults.concurrentDownloads
    var lifo = false
    /// The URL list's file; nil: stdin.
    var file: String?

    /// The options the plan reads, with every name the parser gives each
    /// for `prefetch` and whether it takes a value (`OptionTablesTests`
    /// proves them the parser's). `init` reads the values by position.
    static let options: [PlainCommandLine.Option] = [
        (["--cache-dir"], true), (["-q", "--quiet"], false), (["-v", "--verbose"], false), (["--json"], false),
        (["--progress"], false), (["--no-progress"], false), (["-j", "--concurrency"], true), (["--lifo"], false),
    ]

    /// The values the parser read, as a plan.
    init(
        cacheDirectory: String?, quiet: Bool, verbose: Bool, json: Bool, progress: Bool?, concurrency: Int,
        lifo: Bool, file: String?
    ) {
        (self.cacheDirectory, self.quiet, self.verbose, self.json) = (cacheDirectory, quiet, verbose, json)
        (self.progress, self.concurrency, self.lifo, self.file) = (progress, concurrency, lifo, file)
    }

    init?(arguments: [String]) {
        guard Environment.value(of: RemoteStorageOptions.environmentVariable) == nil,
            let line = PlainCommandLine(arguments, subcommand: "prefetch", options: Self.options),
            line.operands.count <= 1, !(line.has(4) && line.has(5))
        else { return nil }
        cacheDirectory = line.values[0]
        (quiet, verbose, json, lifo) = (line.has(1), line.has(2), line.has(3), line.has(7))
        progress = line.has(4) ? true : line.has(5) ? false : nil
        if let value = line.values[6] {
            guard let concurrency = Int(value) else { return nil }
            self.concurrency = concurrency
        }
        file = line.operands.first
        // What `validate()` of the command and of its global options refuse.
        guard cacheDirectory?.isEmpty != true, !(quiet && verbose), !(quiet && progress == true),
            (1...256).contains(concurrency)
        else { return nil }
    }
}
