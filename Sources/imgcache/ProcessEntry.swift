import Dispatch
import ImageCore

#if canImport(Glibc)
    import Glibc
#endif

/// The process's entry point, synchronous so that a warm cache hit starts
/// no concurrency runtime, no thread and no argument parser: `WarmHit`
/// answers a plain `fetch URL [-o FILE]` hit by itself. Everything else
/// (a miss, any other option or subcommand) goes to the full command line
/// on the main actor, as an `async` main would run it.
@main
enum ProcessEntry {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let plan = WarmHitPlan(arguments: arguments), let status = WarmHit.answer(plan) {
            exit(status)
        }
        WarmHit.handOverSignals()
        MallocArenas.limit()
        Task { @MainActor in
            await IMGCacheCommand.runCommandLine()
            exit(0)
        }
        dispatchMain()
    }
}
