import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Names for temporary files that say which process made them, so a stale
/// one can be told from a live one.
package enum UniqueName {
    /// The process id and a random number, taken once per process: the
    /// random part tells apart two processes that got the same pid at
    /// different times; after that a counter is enough (no `getpid` or
    /// `getrandom` call per file).
    private static let processPart = "\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
    private static let counter = Atomic<UInt64>(0)

    /// "<pid>-<random>-<n>", unique across processes and calls.
    package static func make() -> String {
        "\(processPart)-\(counter.add(1, ordering: .relaxed).newValue)"
    }
}
