import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Turns SIGINT and SIGTERM into a cancellation: in-flight downloads are
/// cancelled (their temporary files removed), the command finishes what it
/// can and exits 130. For the command line (package access).
///
/// Why a self-pipe rather than a Dispatch signal source: on Linux those use
/// signalfd, which only sees a signal that every thread blocks; a signal
/// delivered to one of the concurrency runtime's or libcurl's threads would
/// be lost. The handler only writes a byte, which is async-signal-safe.
/// The byte is read on a thread of its own: a read that blocks for the
/// whole run held one of Dispatch's few global threads, and when the others
/// were busy it was not started at all, so an interrupt went unseen until
/// the work was done (a CI run exited 0 instead of 130).
package enum SignalTrap {
    /// Why unsafe: written once by `install`, before the handler can run;
    /// read by the handler, which may not take locks.
    nonisolated(unsafe) private static var wakeUpDescriptor: Int32 = -1
    private static let interrupted = Atomic<Bool>(false)

    /// Whether a signal arrived.
    package static var wasInterrupted: Bool { interrupted.load(ordering: .relaxed) }

    /// Calls `onSignal` once per signal instead of dying.
    package static func install(_ onSignal: @escaping @Sendable () -> Void) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { return }
        wakeUpDescriptor = descriptors[1]
        let reader = Reader(descriptor: descriptors[0], onSignal: onSignal)
        var thread = pthread_t()
        let context = Unmanaged.passRetained(reader).toOpaque()
        guard
            pthread_create(
                &thread, nil,
                { context in
                    Unmanaged<Reader>.fromOpaque(context!).takeRetainedValue().run()
                    return nil
                }, context) == 0
        else {
            Unmanaged<Reader>.fromOpaque(context).release()
            return
        }
        pthread_detach(thread)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            var byte: UInt8 = 1
            _ = write(SignalTrap.wakeUpDescriptor, &byte, 1)
        }
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
    package static func ignoreFileSizeLimitSignal() {
        signal(SIGXFSZ, SIG_IGN)
    }
}
