import ImageCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Turns SIGINT and SIGTERM into a cancellation: in-flight downloads are
/// cancelled (their temporary files removed), the command finishes what it
/// can and exits 130. One set-up for both paths: the warm hit notes
/// signals (`noteSignals`), the full path traps them (`install`).
///
/// Why a self-pipe rather than a Dispatch signal source: on Linux those use
/// signalfd, which only sees a signal that every thread blocks; a signal
/// delivered to one of the concurrency runtime's or libcurl's threads would
/// be lost. The handler only writes a byte, which is async-signal-safe.
/// The byte is read on a thread of its own: a read that blocks for the
/// whole run held one of Dispatch's few global threads, and when the others
/// were busy it was not started at all, so an interrupt went unseen until
/// the work was done (a CI run exited 0 instead of 130).
enum SignalTrap {
    /// Why unsafe: written once by `install`, before the handler can run;
    /// read by the handler, which may not take locks.
    nonisolated(unsafe) private static var wakeUpDescriptor: Int32 = -1
    private static let interrupted = Atomic<Bool>(false)
    /// The signal noted while the warm hit ran (`noteSignals`); 0 for none.
    /// Why an atomic: written by the signal handler.
    private static let noted = Atomic<Int32>(0)

    /// Whether a signal arrived.
    static var wasInterrupted: Bool { interrupted.load(ordering: .relaxed) }

    /// Calls `onSignal` once per signal instead of dying.
    static func install(_ onSignal: @escaping @Sendable () -> Void) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { return }
        wakeUpDescriptor = descriptors[1]
        let reader = Reader(descriptor: descriptors[0], onSignal: onSignal)
        guard let thread = try? SystemThread.start({ reader.run() }) else { return }
        thread.detach()
        handle { _ in
            var byte: UInt8 = 1
            _ = write(SignalTrap.wakeUpDescriptor, &byte, 1)
        }
    }

    /// The warm hit's set-up (it starts no thread): SIGINT and SIGTERM are
    /// noted, not fatal, so a hit finishes as the full path lets one
    /// finish; a write past `ulimit -f` fails instead of killing.
    static func noteSignals() {
        ignoreFileSizeLimitSignal()
        _ = noted.load(ordering: .relaxed)  // initialised before a handler can read it
        handle { signal in SignalTrap.noted.store(signal, ordering: .relaxed) }
    }

    /// Before the full path, after `noteSignals`: the default actions again,
    /// and the process ends by the signal noted meanwhile, as it would have
    /// without the warm-hit attempt.
    static func handOverNotedSignals() {
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        let caught = noted.load(ordering: .relaxed)
        if caught != 0 { raise(caught) }
    }

    /// Sends SIGINT and SIGTERM to `handler` (restarting interrupted calls).
    /// The corresponding C function is `sigaction`.
    private static func handle(_ handler: @convention(c) (Int32) -> Void) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
    }

    /// The reading end of the self-pipe, on its own thread.
    private final class Reader: Sendable {
        let descriptor: Int32
        let onSignal: @Sendable () -> Void

        init(descriptor: Int32, onSignal: @escaping @Sendable () -> Void) {
            self.descriptor = descriptor
            self.onSignal = onSignal
        }

        /// Calls `onSignal` for each byte the handler writes.
        func run() {
            var byte: UInt8 = 0
            while POSIXFile.retryingInterrupts({ read(descriptor, &byte, 1) }) == 1 {
                interrupted.store(true, ordering: .relaxed)
                onSignal()
            }
        }
    }

    /// A write past `ulimit -f` then fails with EFBIG (a cache error, exit 8)
    /// instead of killing the process. The corresponding C call is
    /// `signal(SIGXFSZ, SIG_IGN)`.
    static func ignoreFileSizeLimitSignal() {
        signal(SIGXFSZ, SIG_IGN)
    }
}
