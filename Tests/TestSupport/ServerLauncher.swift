package import Foundation
import Synchronization

#if THREAD_SANITIZER
    // Its `Mutex` alias, which TSan can see (ImageCore's System/SanitizerLocks.swift).
    import ImageCore
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Starts the servers tests run as processes (nginx, Apache, redis-server,
/// SeaweedFS, Python's) so that each dies with the test process, however that
/// ends: a test process killed with SIGKILL, or crashed, ran no deinit and no
/// `atexit`, and its servers lived on (SeaweedFS, Apache and nginx were found
/// running after a `kill -9`).
///
/// How: the server is run as `setpriv --pdeathsig KILL -- /bin/sh -c CHECK
/// TESTPID SERVER ARGS...`. setpriv asks the kernel (`PR_SET_PDEATHSIG`) to
/// send SIGKILL when its parent goes, which lasts through the two `exec`s
/// after it; the shell then checks that its parent is still this process (a
/// parent that died before the request left the child to init, and nothing
/// would be sent) and `exec`s the server, so the server's pid is the one
/// `Process` reports. The server must run in the foreground in one process
/// (nginx `daemon off; master_process off`, Apache `-X`): a daemon's forked
/// children have no death signal.
///
/// The kernel's "parent" is the thread that forked, not the process: a server
/// started from a cooperative pool thread would be killed when libdispatch
/// retires that thread. So every start runs on one thread that lives as long
/// as the process (`launcherThread`).
package enum ServerLauncher {
    /// Runs `process` (its executable, arguments and standard streams set) so
    /// that it dies with this process; its `processIdentifier` is the server's.
    package static func run(_ process: Process) throws {
        guard let executable = process.executableURL?.path else { throw CocoaError(.fileNoSuchFile) }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        let check = "[ \"$PPID\" = \"$0\" ] || exit 125; exec \"$@\""
        process.arguments =
            ["--pdeathsig", "KILL", "--", "/bin/sh", "-c", check, String(getpid()), executable]
            + (process.arguments ?? [])
        let started = Sendable(process)
        try launcherThread.perform { try started.process.run() }
    }

    /// Why unchecked: the process is handed to the launcher thread and used
    /// there alone until `perform` returns.
    private struct Sendable: @unchecked Swift.Sendable {
        let process: Process
        init(_ process: Process) { self.process = process }
    }

    private static let launcherThread = LauncherThread()
}

/// One thread that never ends, running the jobs handed to it in turn.
private final class LauncherThread: Sendable {
    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let queued = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in
            while true {
                queued.wait()
                let job = jobs.withLock { $0.removeFirst() }
                job()
            }
        }
        thread.name = "server launcher"
        thread.start()
    }

    /// Runs `body` on the thread and waits for it.
    func perform(_ body: @escaping @Sendable () throws -> Void) throws {
        let outcome = Outcome()
        jobs.withLock {
            $0.append {
                do { try body() } catch { outcome.failure.withLock { $0 = error } }
                outcome.done.signal()
            }
        }
        queued.signal()
        outcome.done.wait()
        if let error = outcome.failure.withLock({ $0 }) { throw error }
    }

    /// What a job gives back to its caller.
    private final class Outcome: Sendable {
        let failure = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
    }
}
