import ArgumentParser
import ImageCore

/// Options every subcommand takes. `Help` says what `-v` and `--json` do in
/// that subcommand, so each subcommand's help describes its own output.
struct GlobalOptions<Help: GlobalOptionsHelp>: ParsableArguments {
    @Option(
        name: .customLong("cache-dir"),
        help: ArgumentHelp(
            "Cache location (default: $IMGCACHE_DIR, else $XDG_CACHE_HOME/imgcache, else ~/.cache/imgcache).",
            valueName: "dir"),
        completion: .directory)
    var cacheDirectory: String?

    @Flag(name: .shortAndLong, help: ArgumentHelp(Help.quiet))
    var quiet = false

    @Flag(name: .shortAndLong, help: ArgumentHelp(Help.verbose))
    var verbose = false

    @Flag(help: ArgumentHelp(Help.json))
    var json = false

    @Flag(exclusivity: .chooseLast)
    var progressChoice: ProgressChoice<Help>?

    @OptionGroup var remote: RemoteStorageOptions

    func validate() throws {
        if cacheDirectory?.isEmpty == true { throw ValidationError("--cache-dir must not be empty") }
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together") }
        if quiet && progress == true { throw ValidationError("--quiet and --progress cannot be used together") }
    }

    /// --progress (true), --no-progress (false), or neither (nil).
    var progress: Bool? { progressChoice.map { $0 == .progress } }

    /// `--cache-dir`'s directory (the default one for nil), made absolute;
    /// nil when there is no default (no `HOME`, no home in the password database).
    static func cacheDirectory(named path: String?) -> CacheDirectory? {
        guard let path = path ?? CacheDirectory.defaultRoot(environment: Environment.variables) else { return nil }
        return CacheDirectory(root: Environment.absolutePath(path))
    }

    /// A progress bar if one should be shown: never under -q; otherwise as
    /// --progress/--no-progress say, or when stderr is a terminal.
    func progressBar() -> ProgressBar? { Self.progressBar(quiet: quiet, progress: progress) }

    /// `progressBar()` for these options' values, read by the parser or by a plan.
    static func progressBar(quiet: Bool, progress: Bool?) -> ProgressBar? {
        guard !quiet, progress ?? StandardStreams.isTerminal(2) else { return nil }
        return ProgressBar(environment: Environment.variables)
    }

    /// The `--verbose` event log, writing to stderr.
    var events: EventLog { Self.events(verbose: verbose) }

    /// The event log `-v` asks for, or a silent one.
    static func events(verbose: Bool) -> EventLog {
        verbose ? EventLog { line in StandardStreams.printError("imgcache: \(line)") } : .silent
    }
}

/// `--progress` and `--no-progress`, each with its own help; hidden from the
/// help of a subcommand that draws no bar (it refuses `--progress`, so
/// listing it would offer what it then rejects).
enum ProgressChoice<Help: GlobalOptionsHelp>: String, EnumerableFlag {
    case progress, noProgress

    static func help(for value: ProgressChoice) -> ArgumentHelp? {
        guard Help.drawsProgress else { return .hidden }
        return switch value {
        case .progress: "Show progress bars on stderr even when it is not a terminal."
        case .noProgress: "Never show progress bars (default: shown when stderr is a terminal and -q is not given)."
        }
    }
}

/// What the global options do in one subcommand.
protocol GlobalOptionsHelp {
    /// Whether the subcommand draws a progress bar (fetch and prefetch).
    static var drawsProgress: Bool { get }
    static var quiet: String { get }
    static var verbose: String { get }
    static var json: String { get }
}

extension GlobalOptionsHelp {
    static var drawsProgress: Bool { false }
    static var quiet: String { "No progress and no warnings; errors are still printed." }
}

extension IMGCacheCommand.Fetch: GlobalOptionsHelp {
    static var drawsProgress: Bool { true }
    static var verbose: String {
        "One line per event on stderr: request started, response received (status, size), served from memory or "
            + "disk, revalidated, stored, retried, thumbnail scaled and encoded."
    }
    static var json: String {
        "One JSON record per URL on stdout instead of image data (see JSON RECORDS in the man page)."
    }
}

extension IMGCacheCommand.Prefetch: GlobalOptionsHelp {
    static var drawsProgress: Bool { true }
    static var quiet: String { "No progress, no warnings and no summary; errors are still printed." }
    static var verbose: String {
        "One line per event on stderr: request started, response received (status, size), served from disk, "
            + "revalidated, stored, retried."
    }
    static var json: String { "One JSON record per URL on stdout as each completes." }
}

extension IMGCacheCommand.Stat: GlobalOptionsHelp {
    static var quiet: String { "Print nothing; with URLs, only the exit status says whether all are cached." }
    static var verbose: String { "No extra output: stat only reads the cache." }
    static var json: String { "The summary, or one record per URL, as JSON on stdout." }
}

extension IMGCacheCommand.Clean: GlobalOptionsHelp {
    static var quiet: String { "Print nothing unless something fails." }
    static var verbose: String {
        "One line per entry removed on stderr, with the reason (unused too long, over the size limit)."
    }
    static var json: String { "The report as one JSON record on stdout." }
}

extension IMGCacheCommand.Purge: GlobalOptionsHelp {
    static var quiet: String { "Print nothing unless something fails." }
    static var verbose: String {
        "With --remote, each request to a store and one line per URL and store on stderr ('imgcache: URL: removed "
            + "from STORE' or 'was not in STORE'); otherwise no extra output: purge already prints one line per URL."
    }
    static var json: String { "One JSON record per URL (or one for --all or --failed) on stdout instead of the lines." }
}
