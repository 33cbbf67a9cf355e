import ArgumentParser
import ImageCore

/// Options every subcommand takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .customLong("cache-dir"),
            help: ArgumentHelp("Cache location (default: $IMGCACHE_DIR, else $XDG_CACHE_HOME/imgcache, else ~/.cache/imgcache).",
                               valueName: "dir"))
    var cacheDirectory: String?

    @Flag(name: .shortAndLong, help: "No warnings; errors are still printed.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "One line per event on stderr (request, response, served from memory/disk, stored).")
    var verbose = false

    @Flag(help: "Machine-readable output on stdout: one JSON object per line.")
    var json = false

    @Flag(inversion: .prefixedNo,
          help: "Force progress bars on or off (default: on only when stderr is a terminal and -q is not given).")
    var progress: Bool?

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together") }
    }

    /// The cache directory, made absolute against the working directory.
    var resolvedCacheDirectory: CacheDirectory {
        let path = cacheDirectory ?? CacheDirectory.defaultRoot(environment: Environment.variables)
        return CacheDirectory(root: Environment.absolutePath(path))
    }

    /// A progress bar if one should be shown: never under -q; otherwise as
    /// --progress/--no-progress say, or when stderr is a terminal.
    func progressBar() -> ProgressBar? {
        guard !quiet, progress ?? StandardStreams.isTerminal(2) else { return nil }
        return ProgressBar(environment: Environment.variables)
    }

    /// The `--verbose` event log, writing to stderr.
    var events: EventLog {
        verbose ? EventLog { line in StandardStreams.printError("imgcache: \(line)") } : .silent
    }
}
