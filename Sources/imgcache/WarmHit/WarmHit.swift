import ImageCore
import Synchronization

/// `fetch`'s warm-hit path: a fresh disk hit for a `WarmHitPlan` is served
/// synchronously, on the main thread, with no concurrency runtime, no
/// signal-handling thread and no argument parsing, with the same output,
/// exit status, statistics, last-use update and `-v` line as the full
/// path, through the full path's pieces: `CacheSession.manager`,
/// `ImageManager.freshHit` (the one `Lookup`), `FetchOutput.write` (or
/// `cachedPath` for `--path`) and
/// `SignalTrap`. Whatever it does not answer goes to the full path unchanged.
enum WarmHit {
    /// The exit status of the answered hit, or nil to take the full path.
    static func answer(_ plan: WarmHitPlan) -> Int32? {
        // A progress bar would be drawn and cleared, and a terminal on stdout
        // gets a summary line: both belong to the full path.
        guard plan.quiet || plan.noProgress || !StandardStreams.isTerminal(2) else { return nil }
        guard plan.output != nil || plan.path || !StandardStreams.isTerminal(1) else { return nil }
        SignalTrap.noteSignals()
        guard let directory = GlobalOptions<IMGCacheCommand.Fetch>.cacheDirectory(named: plan.cacheDirectory) else {
            return nil
        }
        // Warnings about imgcache.conf are the full path's to print
        // (`CacheSession.settings`). No remote storage: a fresh disk hit never
        // asks one. A read-only cache throws here (`readOnly` false) and
        // takes the full path.
        guard let configuration = try? ImageManager.Configuration.reading(directory),
            configuration.cache.warnings.isEmpty,
            let manager = try? CacheSession.manager(
                configuration, events: GlobalOptions<IMGCacheCommand.Fetch>.events(verbose: plan.verbose),
                remoteStorage: { _ in [] })
        else { return nil }
        // The request the full path would make (`--offline`'s included).
        guard let response = manager.freshHit(plan.request) else {
            // A damaged entry found on the way was counted: keep the count.
            try? manager.statistics.flush(to: directory)
            return nil
        }
        var status: Int32 = 0
        do {
            if plan.path {
                StandardStreams.print(try FetchOutput.cachedPath(response))
            } else {
                try FetchOutput.write(response.bytes, to: plan.output.map(FetchOutput.Destination.output) ?? .stdout)
            }
        } catch {
            // Stdout's failure is the run's, not the URL's (`OutputFailure`).
            let failure = StandardStreams.failure ?? ImageCoreError(reporting: error)
            let stdoutFailed = StandardStreams.failure != nil
            StandardStreams.printError("imgcache: \(stdoutFailed ? "" : "\(plan.url): ")\(failure.message)")
            status = ExitStatus.code(for: failure.kind)
        }
        try? manager.statistics.flush(to: directory)
        // The process ends with this answer: releasing the manager would run
        // every step's teardown (0.5 M instructions, a fifth of the hit's,
        // callgrind) for memory the exit gives back anyway. Held here, not
        // leaked, so LeakSanitizer still sees it reachable.
        keptForExit.withLock { $0 = manager }
        // A path that could not be printed: exit 23, as the full path ends.
        if plan.path { OutputFailure.exitIfStdoutFailed(status: status) }
        return status
    }

    private static let keptForExit = Mutex<ImageManager?>(nil)
}
