#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Wall-clock time as seconds since 1970, the unit of every timestamp in the cache.
public enum WallClock {
    /// Now, in seconds since 1970 with sub-second precision.
    public static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

/// Seconds on a clock that only goes forward, for measuring durations and
/// deadlines (the wall clock can jump).
public enum MonotonicClock {
    /// Now, in seconds since an arbitrary start. The corresponding C
    /// function is `clock_gettime(CLOCK_MONOTONIC)`.
    public static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

/// Now, on the wall and monotonic clocks, and a sleep: what a type that
/// waits, expires, backs off or paces is given by its creator (`Lookup`,
/// `NetworkFetch`, `RemoteCache` and its leases), so that a test drives
/// time and a wait that is wrong fails in milliseconds, not seconds.
///
/// Thread safety: every method may be called from any thread or task concurrently.
protocol TimeSource: Sendable {
    /// Seconds since 1970, as `WallClock.now()`: what freshness is judged by.
    func wallNow() -> Double
    /// Seconds on a clock that only goes forward, as `MonotonicClock.now()`:
    /// what deadlines and waits are measured on.
    func monotonicNow() -> Double
    /// Suspends the task for `seconds` of monotonic time (none if not
    /// positive). Throws `CancellationError` if the task is cancelled.
    func sleep(_ seconds: Double) async throws
}

/// The system's clocks, and `Task.sleep`.
struct SystemClock: TimeSource {
    func wallNow() -> Double { WallClock.now() }
    func monotonicNow() -> Double { MonotonicClock.now() }
    func sleep(_ seconds: Double) async throws {
        guard seconds > 0 else { return try Task.checkCancellation() }
        // A year caps what UInt64 nanoseconds must hold; no wait here is near it.
        try await Task.sleep(nanoseconds: UInt64(min(seconds, 31_536_000) * 1_000_000_000))
    }
}
