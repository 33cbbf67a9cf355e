import ImageCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `fetch`'s warm-hit path: a fresh disk hit for a `WarmHitPlan` is served
/// synchronously, on the main thread, with no concurrency runtime, no
/// signal-handling thread and no argument parsing, with the same output,
/// exit status, statistics, last-use update and `-v` line as the full
/// path. Whatever it does not answer goes to the full path unchanged.
enum WarmHit {
    /// The signal (SIGINT or SIGTERM) that arrived while the hit was served;
    /// 0 for none. Why an atomic: written by the signal handler.
    private static let caughtSignal = Atomic<Int32>(0)

    /// The exit status of the answered hit, or nil to take the full path.
    static func answer(_ plan: WarmHitPlan) -> Int32? {
        // A progress bar would be drawn and cleared, and a terminal on stdout
        // gets a summary line: both belong to the full path.
        guard plan.quiet || plan.noProgress || !StandardStreams.isTerminal(2) else { return nil }
        guard plan.output != nil || !StandardStreams.isTerminal(1) else { return nil }
        // A write past `ulimit -f` should fail with EFBIG (exit 8), as in `CacheSession`.
        signal(SIGXFSZ, SIG_IGN)
        catchSignals()
        let root = plan.cacheDirectory ?? CacheDirectory.defaultRoot(environment: Environment.variables)
        let directory = CacheDirectory(root: Environment.absolutePath(root))
        guard let manager = try? manager(for: directory, verbose: plan.verbose) else { return nil }
        // What `DownloadOptions` asks for with no option given.
        guard let response = manager.freshHit(ImageRequest(url: plan.url)) else {
            // A damaged entry found on the way was counted: keep the count.
            try? manager.statistics.flush(to: directory)
            return nil
        }
        var status: Int32 = 0
        do {
            try write(response.bytes, to: plan.output)
        } catch {
            let failure = ImageCoreError(reporting: error)
            // Stdout's failure is the run's, not the URL's (`OutputFailure`).
            let stdoutFailed = StandardStreams.failure != nil
            StandardStreams.printError("imgcache: \(stdoutFailed ? "" : "\(plan.url): ")\(failure.message)")
            status = ExitStatus.code(for: failure.kind)
        }
        try? manager.statistics.flush(to: directory)
        return status
    }

    /// Before the full path: restores the default signal actions, and ends
    /// the process by the signal that arrived meanwhile, as it would have
    /// without the warm-hit attempt.
    static func handOverSignals() {
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        let caught = caughtSignal.load(ordering: .relaxed)
        if caught != 0 { raise(caught) }
    }

    /// The manager `CacheSession` would build for `fetch` with no options:
    /// the cache's own settings, no remote storage (a fresh disk hit never
    /// asks one), a writable cache (a read-only one takes the full path).
    private static func manager(for directory: CacheDirectory, verbose: Bool) throws -> ImageManager {
        var configuration = try ImageManager.Configuration.reading(directory)
        // Its warnings are the full path's to print (`CacheSession.settings`).
        guard configuration.cache.warnings.isEmpty else { throw ImageCoreError(.usage, "imgcache.conf warnings") }
        configuration.cache.remoteStorage = []
        configuration.events = verbose ? EventLog { line in StandardStreams.printError("imgcache: \(line)") } : .silent
        return try ImageManager(configuration: configuration, appliesOrientation: true)
    }

    /// Writes the bytes where `FetchOutput` would: the -o file (atomically),
    /// else stdout (`-o -` included).
    private static func write(_ bytes: [UInt8], to output: String?) throws {
        if let output, output != "-" {
            try OutputFile.write(bytes, to: Environment.absolutePath(output))
        } else if !StandardStreams.write(bytes), let failure = StandardStreams.failure {
            throw failure
        }
    }

    /// SIGINT and SIGTERM are noted, not fatal, while the hit is served: the
    /// full path's `SignalTrap` lets a hit finish the same way.
    private static func catchSignals() {
        _ = caughtSignal.load(ordering: .relaxed)  // initialised before a handler can read it
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            WarmHit.caughtSignal.store(signal, ordering: .relaxed)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
    }
}
