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
