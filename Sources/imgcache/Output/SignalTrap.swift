#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// Turns SIGINT and SIGTERM into a cancellation: in-flight downloads are
/// cancelled (their temporary files removed), the command finishes what it
/// can and exits 130.
enum SignalTrap {
    /// Why unsafe: dispatch sources are not Sendable; this array only keeps
    /// them alive and is written once, by `install`, before any signal.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    private static let interrupted = Atomic<Bool>(false)

    /// Whether a signal arrived.
    static var wasInterrupted: Bool { interrupted.load(ordering: .relaxed) }

    /// Calls `onSignal` (once per signal) instead of dying.
    static func install(_ onSignal: @escaping @Sendable () -> Void) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                interrupted.store(true, ordering: .relaxed)
                onSignal()
            }
            source.resume()
            sources.append(source)
        }
    }
}
