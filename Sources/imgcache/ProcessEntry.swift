import Dispatch
import ImageCore

#if canImport(Glibc)
    import Glibc
#endif

/// The process's entry point, synchronous so that a warm cache hit starts
/// no concurrency runtime, no thread and no argument parser: `WarmHit`
/// answers a plain `fetch URL [-o FILE]` hit by itself. Everything else
/// (a miss, any other option or subcommand) goes to the full command line
/// on the main actor, as an `async` main would run it; a usual `prefetch`,
/// `fetch` or `clean` line (`PrefetchPlan`, `FetchPlan`, `CleanPlan`) skips
/// the argument parser there.
@main
enum ProcessEntry {
    static func main() {
        if let status = versionStatus() ?? warmHitStatus() { exit(status) }
        runFullCommandLine()
    }

    /// Everything that is neither `--version` nor a warm hit. Never inlined:
    /// inlined, `main` fetched the `Task`'s priority type (`TaskPriority?`)
    /// before either of them was tried, and the first `Optional` type a
    /// process builds costs 32 k instructions (the runtime caches every
    /// prespecialized one; callgrind), a twentieth of `--version`.
    @inline(never)
    private static func runFullCommandLine() -> Never {
        SignalTrap.handOverNotedSignals()
        MallocArenas.limit()
        CurlGlobal.prepareProcess()
        Task { @MainActor in
            let arguments = ProcessArguments.afterName
            if let plan = PrefetchPlan(arguments: arguments) {
                await IMGCacheCommand.run { try await IMGCacheCommand.Prefetch.run(plan, download: nil, remote: nil) }
            } else if let plan = FetchPlan(arguments: arguments) {
                await IMGCacheCommand.run { try await IMGCacheCommand.Fetch.run(plan, download: nil, remote: nil) }
            } else if let plan = CleanPlan(arguments: arguments) {
                await IMGCacheCommand.run { try await IMGCacheCommand.Clean.run(plan) }
            } else {
                await IMGCacheCommand.runCommandLine()
            }
            exit(0)
        }
        dispatchMain()
    }

    /// `imgcache --version` alone, answered before the argument parser: its
    /// first use looks up protocol conformances across the whole binary,
    /// 8.8 M of the 12.2 M instructions `--version` took through it
    /// (callgrind), twice a warm hit's whole run.
    private static func versionStatus() -> Int32? {
        guard ProcessArguments.isOnly("--version") else { return nil }
        StandardStreams.print(ImageCoreVersion.string)
        OutputFailure.exitIfStdoutFailed(status: 0)
        return 0
    }

    /// `WarmHit`'s exit status when it answers. A function of its own so
    /// that the arguments and the plan are released when it returns: on
    /// Linux `dispatchMain()` ends the main thread with `pthread_exit`, and
    /// whatever `main`'s frame still owned would be reachable from no
    /// thread (LeakSanitizer reported the arguments array at every exit).
    private static func warmHitStatus() -> Int32? {
        guard let plan = WarmHitPlan(arguments: ProcessArguments.afterName) else { return nil }
        return WarmHit.answer(plan)
    }
}
